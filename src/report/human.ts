import { redact } from '../shared/secrets.js';
import { COMMAND_TITLES, kindLabel, type Problem, type ReportModel, rowLabel } from './model.js';

/**
 * `--reporter human=FILE`: the human summary as plain text (no colours) for a file. On the
 * terminal the commands print their own, richer output.
 */
function problemLine(p: Problem): string {
  const where = [
    p.file ? `${p.file} ${rowLabel(p)}` : rowLabel(p),
    p.column ? `column ${p.column}` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  const value = p.value !== undefined ? ` (value: ${p.value})` : '';
  return `  ${p.severity} ${where}: ${p.message}${value}${p.hint ? `; ${p.hint}` : ''}`;
}

export function renderHuman(model: ReportModel): string {
  const t = model.totals;
  const lines: string[] = [`${COMMAND_TITLES[model.command]}: ${model.files.join(', ')}`];
  if (model.kinds.length > 0) {
    lines.push('Problems by kind:');
    for (const k of model.kinds) lines.push(`  ${k.severity} ${kindLabel(k)}: ${k.count}`);
  }
  if (model.problems.length > 0) {
    lines.push(model.unlisted > 0 ? `First ${model.problems.length} issues:` : 'Issues:');
    for (const p of model.problems) lines.push(problemLine(p));
    if (model.unlisted > 0) lines.push(`  ... ${model.unlisted} more (raise --max-errors to list them)`);
  }
  const u = model.upload?.summary;
  if (u)
    lines.push(
      `upload: ${u.sent} sent in ${u.batches} batches: ${u.accepted} accepted, ${u.rejected} rejected, ${u.failed} not delivered${u.dryRun ? ' (dry run: nothing was sent)' : ''}`,
    );
  const e = model.events;
  if (e)
    lines.push(`events: ${e.sent} sent, ${e.accepted} accepted, ${e.rejected} rejected, ${e.failed} failed`);
  if (model.stopped) lines.push(`STOPPED (${model.stopped.reason}): ${model.stopped.message}`);
  const verdict = model.stopped ? 'STOPPED' : t.errors > 0 || t.invalid > 0 ? 'FAILED' : 'OK';
  lines.push(
    `${verdict}: ${t.total} ${model.unit}(s), ${t.valid} valid, ${t.invalid} invalid, ${t.errors} error(s), ${t.warnings} warning(s)`,
  );
  return redact(`${lines.join('\n')}\n`);
}
