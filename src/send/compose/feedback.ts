// Step: Feedback-ID. Gmail's feedback loop reports complaints per these identifiers: the kind of
// mail, the workspace, the sender (our name last). Every value here is ours: nothing of the request.
import type { Step } from './draft.js';

export const feedbackStep: Step = {
  name: 'feedback-id',
  perRecipient: () => false,
  apply(draft, { content }) {
    draft.headers.push(['Feedback-ID', `${content.source}:${content.workspace_id}:svc`]);
  },
};
