// patches/smtp-server+3.21.6.patch adds one option to smtp-server (applied by patch-package at
// install, see README "Dependencies we patch"): the pause before the greeting in which a client that
// talks first is caught as an early talker (smtp-server hard-codes 100 ms). 0 greets at once.
import 'smtp-server';

declare module 'smtp-server' {
  interface SMTPServerOptions {
    /** ms before the greeting; a command sent before it is refused with 421 (default 100). */
    greetingDelay?: number;
    /** smtp-server's own option, missing from @types/smtp-server: the client's reverse look-up. */
    resolver?: { reverse(ip: string, cb: (err: Error | null, names?: string[]) => void): void };
  }
}
