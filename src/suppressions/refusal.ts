// A store's refusal of a send that names a suppressed recipient (AcceptBatch.unsuppressed): the
// pipeline reads the list then and sends again with those recipients marked.
import { SvcError, isSvcError } from '../errors.js';

export const suppressedRecipients = (addresses: string[]) =>
  new SvcError('conflict', `on the suppression list: ${addresses.join(', ')}`, { details: { suppressed: addresses } });

export const isSuppressedRefusal = (e: unknown): boolean => isSvcError(e) && e.kind === 'conflict' && Array.isArray(e.details?.suppressed);
