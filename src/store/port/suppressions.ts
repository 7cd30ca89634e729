// The suppression list.
import type { Suppression } from '../../model/suppression.js';

export interface SuppressionStore {
  list(workspaceId: string): Promise<Suppression[]>;
  /** Adds or keeps the first entry; returns the entry in force. */
  add(s: Suppression): Promise<Suppression>;
  remove(workspaceId: string, address: string): Promise<boolean>;
  /** Which of these (lowercase) addresses are suppressed. */
  find(workspaceId: string, addresses: string[]): Promise<Suppression[]>;
}
