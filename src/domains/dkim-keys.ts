// A domain's DKIM key pair: RSA 2048, the public key as the base64 SPKI DER of the p= tag, the
// private key as PKCS#8 PEM.
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

export async function newDkimKeyPair(): Promise<{ publicKey: string; privateKey: string }> {
  const { publicKey, privateKey } = await generate('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKey: (publicKey as unknown as Buffer).toString('base64'), privateKey: privateKey as unknown as string };
}
