// Return paths (VERP): with `--return-path verp` (the default) every recipient of every copy is
// handed off in a transaction of its own whose envelope sender is `bounces+TOKEN@SENDING-DOMAIN`,
// TOKEN being that recipient's message record id written as 32 hex digits. The sending domain's MX
// already points at {mx_host} (the five records), so bounce reports and feedback-loop complaints
// come back to the MX, which finds the one record a return path speaks for from the address alone.
// A recipient only ever sees its own return path, so nobody can report about anyone else. The id is
// a random UUID: a record cannot be guessed, and it survives a relay that lowercases the local part.
// No other form is taken: an address of a copy shared by several recipients could not prove whom
// a report at it is about.
const RETURN_PATH = /^bounces\+([0-9a-f]{32})@([^@\s]+)$/i;

/** `verp`: a return path per recipient; `from`: the From address (smarthosts that check the sender). */
export type ReturnPathMode = 'verp' | 'from';
export const RETURN_PATH_MODES: readonly ReturnPathMode[] = ['verp', 'from'];

/** The return path of one recipient's record (its id) for mail from `from`. */
export function returnPath(messageId: string, from: string): string {
  return `bounces+${messageId.replace(/-/g, '').toLowerCase()}@${from.slice(from.lastIndexOf('@') + 1)}`;
}

const dashed = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** The message record id and domain of a return path, or null when the address is not one. */
export function parseReturnPath(address: string): { messageId: string; domain: string } | null {
  const m = RETURN_PATH.exec(address);
  return m ? { messageId: dashed(m[1]!.toLowerCase()), domain: m[2]!.toLowerCase() } : null;
}
