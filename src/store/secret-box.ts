// DKIM private keys at rest (in Postgres and in the file store's svc.json), encrypted with a key the operator provides
// (SVC_ENCRYPTION_KEY or --encryption-key-file): AES-256-GCM, each value with its own nonce, and
// the key's id in the value, so a wrong key is told apart from damaged data. A database dump, a
// read-only replica or a copied store directory then holds no usable signing key.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { SvcError } from '../errors.js';

const PREFIX = 'enc:v1:';

export const isSealed = (value: string): boolean => value.startsWith(PREFIX);

export class SecretBox {
  readonly #key: Buffer;
  /** Names the key in every value it seals (not secret: a hash prefix). */
  readonly id: string;

  constructor(key: Buffer) {
    this.#key = key;
    this.id = createHash('sha256').update('svc-encryption-key').update(key).digest('hex').slice(0, 8);
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return `${PREFIX}${this.id}:${iv.toString('base64')}:${c.getAuthTag().toString('base64')}:${body.toString('base64')}`;
  }

  open(sealed: string, what: string): string {
    const [id, iv, tag, body] = sealed.slice(PREFIX.length).split(':');
    if (id !== this.id)
      throw new SvcError(
        'store_locked',
        `${what} is encrypted with another key (key id ${id}, this one is ${this.id}): give svc the key it was encrypted with`,
      );
    try {
      const d = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv!, 'base64'));
      d.setAuthTag(Buffer.from(tag!, 'base64'));
      return Buffer.concat([d.update(Buffer.from(body!, 'base64')), d.final()]).toString('utf8');
    } catch {
      throw new SvcError('store_corrupt', `${what} cannot be decrypted (damaged)`);
    }
  }
}

/**
 * A domain with its private key opened. A key whose ciphertext is damaged disables signing for
 * that domain alone (key_damaged, no key, dkim_verified false) rather than every read of every
 * domain, and with it the whole daemon; a key sealed with another key is still refused.
 */
export function openDomainKey<D extends { domain: string; dkim_private_key: string; dkim_verified: boolean; key_damaged?: true }>(
  box: SecretBox,
  d: D,
): D {
  try {
    return { ...d, dkim_private_key: box.open(d.dkim_private_key, `the DKIM key of ${d.domain}`) };
  } catch (e) {
    if (!(e instanceof SvcError && e.kind === 'store_corrupt')) throw e;
    return { ...d, dkim_private_key: '', dkim_verified: false, key_damaged: true };
  }
}

/**
 * A service secret (the STARTTLS private key, the tracked-link key) as stored: sealed when there is
 * a box, as it is otherwise. Opened with openSecret.
 */
export const sealSecret = (box: SecretBox | null, value: string): string => (box && !isSealed(value) ? box.seal(value) : value);

/** A stored service secret, opened; a sealed one without the key refuses (the process could not use it). */
export function openSecret(box: SecretBox | null, value: string, what: string): string {
  if (!isSealed(value)) return value;
  if (!box)
    throw new SvcError(
      'store_locked',
      `${what} is encrypted: set SVC_ENCRYPTION_KEY or --encryption-key-file to the key it was encrypted with`,
    );
  return box.open(value, what);
}

/**
 * Every value `values` holds, opened with `from` (none: plaintext) and sealed with `to`; throws
 * before anything is changed when one cannot be opened (another key, or damaged), naming it.
 */
export function resealAll(values: ReadonlyArray<{ what: string; value: string }>, from: SecretBox | null, to: SecretBox): string[] {
  return values.map(({ what, value }) => {
    try {
      return to.seal(openSecret(from, value, what));
    } catch (e) {
      if (e instanceof SvcError && e.kind === 'store_corrupt')
        throw new SvcError('store_corrupt', `${e.message}: nothing was re-encrypted; remove that domain (or restore the store) first`);
      throw e;
    }
  });
}

/** Without the key, a store whose only sealed values are its own secrets (no DKIM key yet). */
export const NEEDS_KEY_SECRETS =
  'the STARTTLS private key and the tracked-link key of this store are encrypted: set SVC_ENCRYPTION_KEY or --encryption-key-file to the key they were encrypted with';

export const NEEDS_KEY =
  'the DKIM private keys in this database are encrypted: set SVC_ENCRYPTION_KEY or --encryption-key-file to the key they were encrypted with';
export const NEEDS_KEY_FILE_STORE =
  'the DKIM private keys in this store are encrypted: set SVC_ENCRYPTION_KEY or --encryption-key-file to the key they were encrypted with';
