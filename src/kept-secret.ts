// A secret that every daemon of one store shares (the keys that sign tracked links and list
// confirmation links): made once in the store (store.secrets keeps the first one saved), read once
// per process, and asked again after a failed read.
import type { Random } from './clock.js';
import type { StoreSlice } from './store/types.js';

export function keptSecret(store: StoreSlice<'secrets'>, random: Random, name: string): () => Promise<string> {
  let key: Promise<string> | null = null;
  return () =>
    (key ??= store.secrets.keep(name, random.bytes(32).toString('base64url')).catch((e: unknown) => {
      key = null;
      throw e;
    }));
}
