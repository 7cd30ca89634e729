// A domain's records as BIND zone-file lines (`svc domains records D --format zone`), to paste into
// a zone or a provider's import: names fully qualified, TXT values quoted and cut into strings of
// at most 255 bytes (one TXT record made of several strings, which resolvers join again).
export interface ZoneRecord {
  type: string;
  fqdn: string;
  value: string;
}

/** A TXT value as quoted character-strings of at most 255 bytes each, `"` and `\` escaped. */
export function txtStrings(value: string): string {
  const bytes = Buffer.from(value, 'utf8');
  const parts: string[] = [];
  let i = 0;
  do {
    // Never cut inside a UTF-8 sequence: step back to the start of the character.
    let end = Math.min(i + 255, bytes.length);
    while (end < bytes.length && end > i && (bytes[end]! & 0xc0) === 0x80) end--;
    parts.push(bytes.subarray(i, end).toString('utf8'));
    i = end;
  } while (i < bytes.length);
  return parts.map((p) => `"${p.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(' ');
}

export function zoneLines(records: ZoneRecord[], ttl = 3600): string[] {
  return records.map((r) => {
    const name = `${r.fqdn.replace(/\.$/, '')}.`;
    if (r.type === 'MX') {
      const [prio, host] = r.value.split(/\s+/);
      return `${name}\t${ttl}\tIN\tMX\t${prio} ${host!.replace(/\.$/, '')}.`;
    }
    return `${name}\t${ttl}\tIN\t${r.type}\t${r.type === 'TXT' ? txtStrings(r.value) : r.value}`;
  });
}
