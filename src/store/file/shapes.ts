// What a record of each file of the file store must look like, checked when the store is read, so
// that a damaged or foreign record is reported with its file and line (or its place in svc.json)
// instead of failing later as a bare TypeError. Each check returns what is wrong, or null.
export type Check = (v: unknown) => string | null;

export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An object with these fields: `s` string, `a` array, `o` object, `n` number, `?` string or null. */
export function shape(fields: Record<string, 's' | 'a' | 'o' | 'n' | '?'>): Check {
  return (v) => {
    if (!isObj(v)) return 'not an object';
    for (const [k, kind] of Object.entries(fields)) {
      const x = v[k];
      const ok =
        kind === 's'
          ? typeof x === 'string'
          : kind === 'a'
            ? Array.isArray(x)
            : kind === 'o'
              ? isObj(x)
              : kind === 'n'
                ? typeof x === 'number'
                : x === null || typeof x === 'string';
      if (!ok)
        return `field ${k} is ${x === undefined ? 'missing' : `not ${{ s: 'a string', a: 'an array', o: 'an object', n: 'a number', '?': 'a string or null' }[kind]}`}`;
    }
    return null;
  };
}

export function each(field: string, check: Check): Check {
  return (v) => {
    const list = (v as Record<string, unknown>)[field] as unknown[];
    for (let i = 0; i < list.length; i++) {
      const why = check(list[i]);
      if (why) return `${field}[${i}]: ${why}`;
    }
    return null;
  };
}

export const all =
  (...checks: Check[]): Check =>
  (v) => {
    for (const c of checks) {
      const why = c(v);
      if (why) return why;
    }
    return null;
  };

/** svc.json: each collection and each record in it, named by its place (`keys[2]: field hash is missing`). */
export function dataFileProblem(doc: unknown): string | null {
  if (!isObj(doc)) return 'not a JSON object';
  if (doc.version !== 1) return `version ${JSON.stringify(doc.version)} is not 1`;
  const collections: Record<string, Check> = {
    workspaces: shape({ id: 's', name: 's', plan: 's', created_at: 's' }),
    keys: shape({ id: 's', workspace_id: 's', hash: 's', prefix: 's', scopes: 'a', revoked_at: '?' }),
    domains: shape({ id: 's', workspace_id: 's', domain: 's', status: 's' }),
    addresses: shape({ id: 's', workspace_id: 's', address: 's', status: 's' }),
    webhook_endpoints: shape({ id: 's', workspace_id: 's', url: 's', events: 'a', secret: 's' }),
    lists: shape({ id: 's', workspace_id: 's', name: 's' }),
    accounts: shape({ id: 's', email: 's', created_at: 's' }),
    memberships: shape({ workspace_id: 's', account_id: 's', role: 's', created_at: 's' }),
    signin_links: shape({ token_hash: 's', account_id: 's', expires_at: 's' }),
    sessions: shape({ token_hash: 's', account_id: 's', expires_at: 's' }),
  };
  for (const [name, check] of Object.entries(collections)) {
    const list = doc[name];
    if (list === undefined) continue;
    if (!Array.isArray(list)) return `${name} is not an array`;
    for (let i = 0; i < list.length; i++) {
      const why = check(list[i]);
      if (why) return `${name}[${i}]: ${why}`;
    }
  }
  return null;
}
