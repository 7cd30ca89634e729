// `svc store rekey --new-key-file FILE`: the operator's encryption key rotated. Every sealed value
// (DKIM private keys, the STARTTLS private key, the tracked-link key) is opened with the current
// key (SVC_ENCRYPTION_KEY or --encryption-key-file; none for a store never sealed) and sealed with
// the new one, all at once or not at all. Every daemon on the store must be stopped first.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SvcError } from '../../src/errors.js';
import { parseEncryptionKey } from '../../src/config.js';
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'store',
  verb: 'rekey',
  summary:
    're-encrypt every DKIM private key, the STARTTLS key and the tracked-link key with a new encryption key (stop every daemon first)',
  options: [
    {
      flags: '--new-key-file <file>',
      description: 'file holding the new key (32 bytes, hex or base64); the current one is SVC_ENCRYPTION_KEY or --encryption-key-file',
    },
  ],
  async run(ctx, _args, opts) {
    if (typeof opts.newKeyFile !== 'string')
      throw new SvcError('usage', 'svc store rekey needs --new-key-file FILE (the key is never a flag value)');
    let text: string;
    try {
      text = readFileSync(resolve(ctx.io.cwd, opts.newKeyFile), 'utf8');
    } catch (e) {
      throw new SvcError(
        'usage',
        `cannot read --new-key-file ${opts.newKeyFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
    const next = parseEncryptionKey(text, opts.newKeyFile);
    const config = ctx.config();
    let r: { resealed: number; key_id: string };
    if (config.store.kind === 'file') {
      const { rekeyFileStore } = await import('../../src/store/file/rekey.js');
      r = await rekeyFileStore(config.store.dir, config.store.encryptionKey, next);
    } else {
      const { PgStore } = await import('../../src/store/postgres/pg-store.js');
      const store = PgStore.create(config.store, { log: ctx.log });
      try {
        await store.ready();
        r = await store.rekey(next);
      } finally {
        await store.close();
      }
    }
    ctx.out.result(r, () => {
      ctx.out.line(`re-encrypted ${r.resealed} value(s) with the new key (key id ${r.key_id})`);
      ctx.out.note(
        'from now on give svc the new key (SVC_ENCRYPTION_KEY or --encryption-key-file); keep the old one until every backup made with it is gone',
      );
    });
    return 0;
  },
} satisfies CommandSpec;
