// Passwords of the web app's people: argon2id (@node-rs/argon2, its defaults: 19 MiB, 2 passes,
// OWASP's recommendation), verified in the library's constant time. A sign-in for an email with no
// account (or no password yet) is checked against a hash all the same, so that the time taken does
// not tell which emails have accounts.
import { SvcError } from '../errors.js';

/** Loaded on first use: a native module that every command would otherwise load to start. */
const argon2 = () => import('@node-rs/argon2');

export const PASSWORD_MIN = 10;
/** Longer inputs are refused before hashing: a megabyte "password" must not cost the daemon more than a short one. */
export const PASSWORD_MAX = 256;

/** The rule for a new password, as one sentence when it is broken. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN) return `a password has at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `a password has at most ${PASSWORD_MAX} characters`;
  return null;
}

export async function hashPassword(password: string): Promise<string> {
  const why = passwordProblem(password);
  if (why) throw new SvcError('invalid_argument', why);
  return (await argon2()).hash(password);
}

/** A hash of a password nobody has, with the same cost parameters: checked when there is no account. */
const NOBODY = '$argon2id$v=19$m=19456,t=2,p=1$/H2nyaBv+E6I5ElCfUfgLQ$Fkc8RYh5NBEdkcC2EkdVR67ARNm9w8unIS7Yg1DbsKY';

/** Whether `password` is the one of `stored`; with no stored hash, false after the same work. */
export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  if (password.length > PASSWORD_MAX) return false;
  const { verify } = await argon2();
  if (!stored) {
    await verify(NOBODY, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
