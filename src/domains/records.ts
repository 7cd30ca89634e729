// The five DNS records a domain publishes (spec.md "Prerequisites for sending"), in the spec's order.
import { DKIM_SELECTOR, type Purpose } from '../model/domain.js';

export interface RecordSpec {
  purpose: Purpose;
  type: 'TXT' | 'MX';
  /** As the spec writes it: _svc, @, svc1._domainkey, _dmarc. */
  name: string;
  fqdn: string;
  /** What to publish. */
  value: string;
}

export interface ServiceNames {
  serviceDomain: string;
  mxHost: string;
}

export const spfInclude = (serviceDomain: string) => `include:_spf.${serviceDomain}`;
export const dkimValue = (publicKeyBase64: string) => `v=DKIM1; k=rsa; p=${publicKeyBase64}`;

export function recordSpecs(domain: string, token: string, dkimPublicKey: string, names: ServiceNames): RecordSpec[] {
  return [
    { purpose: 'ownership', type: 'TXT', name: '_svc', fqdn: `_svc.${domain}`, value: `svc-verify=${token}` },
    { purpose: 'mx', type: 'MX', name: '@', fqdn: domain, value: `10 ${names.mxHost}` },
    { purpose: 'spf', type: 'TXT', name: '@', fqdn: domain, value: `v=spf1 ${spfInclude(names.serviceDomain)} -all` },
    {
      purpose: 'dkim',
      type: 'TXT',
      name: `${DKIM_SELECTOR}._domainkey`,
      fqdn: `${DKIM_SELECTOR}._domainkey.${domain}`,
      value: dkimValue(dkimPublicKey),
    },
    { purpose: 'dmarc', type: 'TXT', name: '_dmarc', fqdn: `_dmarc.${domain}`, value: 'v=DMARC1; p=quarantine' },
  ];
}
