// Return paths (VERP): outbound mail's envelope sender is `bounces+ID@SENDING-DOMAIN`, where ID is
// the message record of the copy's first recipient. The sending domain's MX already points at
// {mx_host} (the five records), so bounce reports come back to the MX, which finds the message
// from the address alone, without trusting the report's content. The ID is a random UUID: a record
// cannot be guessed, and it survives a relay that lowercases the local part.
const RETURN_PATH = /^bounces\+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@([^@\s]+)$/i;

export function returnPath(messageId: string, from: string): string {
  return `bounces+${messageId}@${from.slice(from.lastIndexOf('@') + 1)}`;
}

/** The message record id and domain of a return path, or null when the address is not one. */
export function parseReturnPath(address: string): { messageId: string; domain: string } | null {
  const m = RETURN_PATH.exec(address);
  return m ? { messageId: m[1]!.toLowerCase(), domain: m[2]!.toLowerCase() } : null;
}
