import { feedRows } from '../feed/index.js';
import { isUrl, sourceName } from '../read/index.js';
import { ExitCode, ExitError, UsageError } from '../shared/errors.js';
import { errorsOnly } from '../shared/logger.js';
import { redact } from '../shared/secrets.js';
import { untilStopped } from '../shared/until-stopped.js';
import { exceedsBudget } from '../upload/budget.js';
import type { NightlyDeps, NightlyPlan } from './plan.js';

/**
 * `--max-invalid`: a first, send-nothing pass over the feed (files only: stdin cannot be read
 * twice). Over the budget, the run stops with exit 1 before anything is sent. A stop (Ctrl-C,
 * SIGTERM) ends the pass; the run then sends nothing and ends as stopped.
 */
export async function checkInvalidBudget(plan: NightlyPlan, deps: NightlyDeps): Promise<void> {
  const budget = plan.maxInvalid;
  if (!budget) return;
  if (plan.files.includes('-'))
    throw new UsageError(
      '--max-invalid cannot be used with stdin ("-")',
      'stdin cannot be read twice; save the feed to a file',
    );
  const url = plan.files.find(isUrl);
  if (url)
    throw new UsageError(
      `--max-invalid cannot be used with a feed from a URL (${sourceName(url)})`,
      'its pass would download the feed a second time; download it to a file first, or use --max-change',
    );
  let rows = 0;
  let invalid = 0;
  // The budget pass reads the feed once more; its warnings were or will be shown by the real pass.
  const items = feedRows(plan.files, plan.feed, errorsOnly(deps.log), undefined, { serialize: false });
  for await (const item of untilStopped(items, deps.interrupt)) {
    if (item.row === 0) continue;
    rows++;
    if (!item.valid) invalid++;
  }
  if (deps.interrupt.aborted || !exceedsBudget(budget, invalid, rows)) return;
  const limit = budget.kind === 'count' ? `${budget.max}` : `${budget.max}%`;
  const ofRows = `${invalid.toLocaleString('en-US')} of ${rows.toLocaleString('en-US')} ${rows === 1 ? 'row' : 'rows'}`;
  throw new ExitError(
    ExitCode.data,
    redact(
      `${ofRows} ${invalid === 1 ? 'is' : 'are'} invalid, more than the ${limit} that --max-invalid allows: nothing was sent`,
    ),
    "run 'genser validate' on the feed to see every problem",
  );
}
