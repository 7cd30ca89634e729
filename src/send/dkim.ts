// DKIM signing with the sender domain's key (selector svc1, relaxed/relaxed), by nodemailer's
// signer. Keys are parsed once into KeyObjects and cached: parsing a PEM costs as much as a
// signature (DESIGN.md "Measured limits").
import { createPrivateKey, type KeyObject } from 'node:crypto';
import DKIM from 'nodemailer/lib/dkim';
import type { Domain } from '../store/types.js';
import { DKIM_SELECTOR } from '../domains/records.js';

/** The headers the signature covers (issue 5: From, To, Cc, Subject, Date, Message-ID, MIME headers). */
export const SIGNED_HEADERS = 'From:To:Cc:Subject:Date:Message-ID:MIME-Version:Content-Type:Content-Transfer-Encoding';

export class DkimSigner {
  #keys = new Map<string, { pem: string; key: KeyObject }>();

  #key(d: Domain): KeyObject {
    const hit = this.#keys.get(d.id);
    if (hit && hit.pem === d.dkim_private_key) return hit.key;
    const key = createPrivateKey(d.dkim_private_key);
    this.#keys.set(d.id, { pem: d.dkim_private_key, key });
    return key;
  }

  /**
   * Signs when the domain's own key is published: always for a verified five-record domain; for a
   * legacy domain once its svc1._domainkey record has checked out. Otherwise the message is left
   * unsigned rather than signed with a key receivers cannot find.
   */
  shouldSign(d: Domain): boolean {
    return !d.legacy || d.dkim_verified;
  }

  async sign(raw: Buffer, d: Domain): Promise<Buffer> {
    const signer = new DKIM({ domainName: d.domain, keySelector: DKIM_SELECTOR, privateKey: this.#key(d) as unknown as string, headerFieldNames: SIGNED_HEADERS });
    const chunks: Buffer[] = [];
    for await (const chunk of signer.sign(raw)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}
