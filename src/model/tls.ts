// The STARTTLS certificate made once when the operator gives none (relay and MX).
export interface TlsIdentity {
  cert: string;
  key: string;
  created_at: string;
}
