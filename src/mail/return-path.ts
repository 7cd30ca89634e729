// Return paths (VERP): with `--return-path verp` (the default) every recipient of every copy is
// handed off in a transaction of its own whose envelope sender is `bounces+TOKEN@SENDING-DOMAIN`,
// TOKEN being that recipient's message record id written as 32 hex digits. The sending domain's MX
// already points at {mx_host} (the five records), so bounce reports and feedback-loop complaints
// come back to the MX, which finds the one record a return path speaks for from the address alone.
// A recipient only ever sees its own return path, so nobody can report about anyone else. The id is
// a random UUID: a record cannot be guessed, and it survives a relay that lowercases the local part.
//
// Mail sent before return paths were per recipient used the dashed UUID of the copy's first record
// for every recipient of the copy (`shared`): a report at such a return path cannot prove whom it
// is about when the copy had several recipients (src/inbox/receive.ts).
const RETURN_PATH = /^bounces\+(?:([0-9a-f]{32})|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}))@([^@\s]+)$/i;

/** `verp`: a return path per recipient; `from`: the From address (smarthosts that check the sender). */
export type ReturnPathMode = 'verp' | 'from';
export const RETURN_PATH_MODES: readonly ReturnPathMode[] = ['verp', 'from'];

/** The return path of one recipient's record (its id) for mail from `from`. */
export function returnPath(messageId: string, from: string): string {
  return `bounces+${messageId.replace(/-/g, '').toLowerCase()}@${from.slice(from.lastIndexOf('@') + 1)}`;
}

const dashed = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/**
 * The message record id and domain of a return path, or null when the address is not one.
 * `shared`: the older form, used for every recipient of its copy.
 */
export function parseReturnPath(address: string): { messageId: string; domain: string; shared: boolean } | null {
  const m = RETURN_PATH.exec(address);
  if (!m) return null;
  const domain = m[3]!.toLowerCase();
  return m[1] ? { messageId: dashed(m[1].toLowerCase()), domain, shared: false } : { messageId: m[2]!.toLowerCase(), domain, shared: true };
}
