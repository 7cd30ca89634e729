// The service's own secrets that every daemon of one store must share (the key that signs tracked
// links), made once.
export interface SecretStore {
  /** The value kept under `name`: the first one saved (two daemons starting at once agree). */
  keep(name: string, value: string): Promise<string>;
}
