// The trial's warnings (spec.md "Plan quotas": "after a further 30 days without a plan
// the data is deleted, after three warning emails"). The daemon's trial tick runs a sweep: for each
// trial workspace whose next warning is due (14, 7 and 1 days before its deletion date), the
// warning is mailed to each of its owners from the system sender, and then recorded. Once all three
// were recorded and its deletion date has come (and a day has passed since the third), the
// workspace is deleted (deletion.ts); without the three warnings it is kept. Exactly once
// with several daemons: each owner's copy has its key (svc's own mail is sent once per key), and
// the record is taken by one daemon only (recordTrialWarning). One warning a sweep and at least a
// day between two, so a daemon that was down does not send them all at once. Without a system
// sender or an owner nothing can be mailed: nothing is recorded, and the daemon says so once.
import type { DepsOf } from '../deps.js';
import { isSvcError } from '../errors.js';
import { upgradeUrlOf } from '../config.js';
import type { Person } from '../model/person.js';
import type { Workspace } from '../model/workspace.js';
import type { SystemMail } from './system-mail.js';
import { TRIAL_WARNING_DAYS, trialDates, type TrialDates } from '../workspaces/trial.js';
import type { WorkspaceDeletionService } from '../workspaces/deletion.js';

const DAY_MS = 86_400_000;

export function trialSweep(deps: DepsOf<'workspaces' | 'people'>, mail: SystemMail, deletion: WorkspaceDeletionService) {
  const { store, clock, log, config } = deps;
  const said = new Set<string>();
  const once = (key: string, line: string) => {
    if (said.has(key)) return;
    said.add(key);
    log.warn(line);
  };

  const warning = (ws: Workspace, owner: Person, dates: TrialDates, now: Date, n: number) => {
    const days = Math.max(1, Math.ceil((Date.parse(dates.delete_at) - now.getTime()) / DAY_MS));
    const on = dates.delete_at.slice(0, 16).replace('T', ' ');
    return {
      to: owner.email,
      subject: `${ws.name}: its data is deleted in ${days} day${days === 1 ? '' : 's'} (${on} UTC)`,
      text:
        `The trial of the svc workspace ${ws.name} ended on ${dates.read_only_at.slice(0, 16).replace('T', ' ')} UTC; since then it is read-only.\n\n` +
        `Unless it moves to a plan, all of its data (messages, the team inbox, lists and subscribers, domains, keys and people) is deleted on ${on} UTC. ` +
        `This is warning ${n} of ${TRIAL_WARNING_DAYS.length}.\n\n` +
        `To keep it, choose a plan: ${upgradeUrlOf(config, ws)}\n`,
    };
  };

  /**
   * One pass: the warnings due now, then the deletions; how many warnings were sent (a warning to
   * every owner counts once), how many workspaces were deleted.
   */
  return async function sweep(stopping: () => boolean = () => false): Promise<{ warned: number; deleted: number }> {
    const now = clock.now();
    let warned = 0;
    for (const ws of await store.workspaces.list()) {
      const dates = trialDates(ws);
      if (!dates) continue;
      const progress = await store.workspaces.trialWarnings(ws.id);
      const n = progress.sent + 1;
      if (n > TRIAL_WARNING_DAYS.length && progress.last_at) {
        // The last warning promised a day's notice: a late one (a daemon was down) moves the date.
        const due = Math.max(Date.parse(dates.delete_at), Date.parse(progress.last_at) + DAY_MS);
        if (now.getTime() >= due) await deletion.request(ws, 'trial');
        continue;
      }
      if (n > TRIAL_WARNING_DAYS.length || now.getTime() < Date.parse(dates.warnings[n - 1]!)) continue;
      if (progress.last_at && now.getTime() - Date.parse(progress.last_at) < DAY_MS) continue;
      const owners = (await store.people.list(ws.id)).filter((m) => m.role === 'owner');
      if (!owners.length) {
        once(
          `owners:${ws.id}`,
          `trial: workspace ${ws.name} has no owner to warn that its data is deleted at ${dates.delete_at}; nothing is sent, and its data is kept`,
        );
        continue;
      }
      let all = true;
      for (const owner of owners) {
        try {
          if (!(await mail.send(`trial-warning:${ws.id}:${n}:${owner.id}`, warning(ws, owner, dates, now, n)))) {
            once('sender', 'trial: warnings cannot be mailed without a usable --system-sender; trial workspaces past their dates are kept');
            all = false;
            break;
          }
        } catch (e) {
          // Another daemon sending the same copy right now (its key is taken) finishes the warning.
          if (!isSvcError(e) || e.kind !== 'conflict')
            log.warn(`trial: warning ${n} to ${owner.email} of ${ws.name} not sent: ${(e as Error).message}`);
          all = false;
          break;
        }
      }
      if (all && (await store.workspaces.recordTrialWarning(ws.id, n, now.toISOString()))) {
        warned++;
        log.info(
          `trial: warning ${n} of ${TRIAL_WARNING_DAYS.length} sent to the ${owners.length} owner${owners.length === 1 ? '' : 's'} of ${ws.name} (its data is deleted at ${dates.delete_at})`,
        );
      }
    }
    return { warned, ...(await deletion.run(stopping)) };
  };
}
