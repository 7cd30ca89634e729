// What svc uses of smtp-server's options beyond @types/smtp-server: the client's reverse look-up.
import 'smtp-server';

declare module 'smtp-server' {
  interface SMTPServerOptions {
    /** smtp-server's own option: the client's reverse look-up. */
    resolver?: { reverse(ip: string, cb: (err: Error | null, names?: string[]) => void): void };
  }
}
