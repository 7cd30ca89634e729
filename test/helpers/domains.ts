// Publishing what svc asks for in the fixture DNS: the vars a zone's {{...}} placeholders take.
import type { FixtureDns } from './dns-server.js';

interface RecordLike {
  purpose: string;
  value: string;
}

export function publish(
  dns: FixtureDns,
  domain: string,
  records: RecordLike[],
  names = { mx_host: 'mx.svc.localhost', service_domain: 'svc.localhost' },
): void {
  const by = (p: string) => records.find((r) => r.purpose === p)!.value;
  const dkim = by('dkim');
  const p = dkim.slice(dkim.indexOf('p=') + 2);
  dns.setVars(domain, {
    token: by('ownership').slice('svc-verify='.length),
    dkim,
    dkim_p1: p.slice(0, 100),
    dkim_p2: p.slice(100),
    ...names,
  });
}
