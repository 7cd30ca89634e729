// The service's own STARTTLS identity.
import type { TlsIdentity } from '../../model/tls.js';

export interface TlsStore {
  get(): Promise<TlsIdentity | null>;
  /** Keeps the first identity saved; returns the one in force (two daemons starting at once agree). */
  saveIfAbsent(t: TlsIdentity): Promise<TlsIdentity>;
}
