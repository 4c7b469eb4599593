import { type ExchangeDeps, type ExchangeSettings, exchange } from '../http/exchange.js';
import type { Outcome } from '../http/outcome.js';
import type { SendRun } from '../http/run.js';
import { buildBody } from '../payload/envelope.js';
import { framingFor } from '../payload/framing.js';
import { ExitError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { PendingBatch, RowRef } from './batcher.js';
import { planRejection } from './bisect.js';
import { batchStatus, type RowLedger } from './ledger.js';
import { isLegacyFail, readRejection, type ServerVerdict } from './response.js';
import type { BatchOutcome, StateHooks, UploadSettings } from './types.js';

/**
 * One batch, sent until each of its rows has an outcome: the whole batch first; when the
 * service refuses it, the parts the bisection plans (src/upload/bisect.ts), each a new body
 * with a new id; parts not yet sent when the run stops are `not sent`.
 */

export interface BatchContext {
  settings: UploadSettings;
  exchange: ExchangeSettings;
  deps: ExchangeDeps;
  run: SendRun;
  ledger: RowLedger;
  log: Logger;
  newId: () => string;
  maxDepth: number;
  state?: StateHooks;
}

/** Indices into the batch's rows, and how many splits made this group. */
interface Group {
  indices: number[];
  depth: number;
}

/** A body's answer as the product API means it. */
type BodyResult =
  | { kind: 'accepted' }
  | { kind: 'rejected'; status: number; verdict: ServerVerdict; tooLarge: boolean }
  | { kind: 'failed' | 'unconfirmed' | 'not_sent'; status: number | string; message: string };

function where(ref: RowRef): string {
  return `${ref.file} row ${ref.row} (line ${ref.line}${ref.sku !== undefined ? `, sku ${ref.sku}` : ''})`;
}

export async function runBatch(batch: PendingBatch, outcome: BatchOutcome, ctx: BatchContext): Promise<void> {
  const { ledger, run } = ctx;
  const seen = new Set<Outcome>();
  const groups: Group[] = [{ indices: batch.rows.map((_, i) => i), depth: 0 }];
  ledger.stats.sent += batch.rows.length;
  while (groups.length > 0) {
    const group = groups.shift()!;
    const rows = group.indices.map((i) => batch.rows[i]);
    const parts = () => group.indices.map((i) => batch.parts[i]);
    if (run.stopped && group.depth > 0) {
      ledger.notSent(rows, batch.index, run.stopMessage);
      await written(ctx, () => ctx.state?.notAccepted?.(rows, parts()));
      seen.add('not_sent');
      continue;
    }
    const result = await sendGroup(batch, group, rows, outcome, ctx);
    if (result.kind === 'accepted') {
      // State first: when it cannot be written, the rows are unconfirmed (in doubt: the batch's
      // record in the state sends it again next run, with its id).
      if (await written(ctx, () => ctx.state?.accepted(rows, parts()))) {
        ledger.accept(rows);
        seen.add('accepted');
      } else {
        ledger.settle(rows, 'unconfirmed', batch.index, 'state', run.stopMessage);
        seen.add('unconfirmed');
      }
    } else if (result.kind === 'rejected') {
      const plan = planRejection({
        skus: rows.map((r) => r.sku),
        errors: result.verdict.errors,
        message: result.verdict.message,
        depth: group.depth,
        maxDepth: ctx.maxDepth,
        tooLarge: result.tooLarge,
      });
      for (const r of plan.rejected) {
        const ref = rows[r.index];
        ledger.settle([ref], 'rejected', batch.index, result.status, r.message);
        await written(ctx, () => ctx.state?.notAccepted?.([ref], [batch.parts[group.indices[r.index]]]));
        ctx.log.warn(`${where(ref)}: rejected (HTTP ${result.status}): ${r.message}`);
      }
      if (plan.rejected.length > 0) seen.add('rejected');
      for (const part of plan.resend)
        groups.push({ indices: part.map((i) => group.indices[i]), depth: group.depth + 1 });
    } else {
      // Never past connecting (DNS, TCP, proxy, TLS): no byte of it reached the service.
      if (result.kind === 'not_sent') ledger.stats.sent -= rows.length;
      ledger.settle(rows, result.kind, batch.index, result.status, result.message);
      await written(ctx, () => ctx.state?.notAccepted?.(rows, parts()));
      seen.add(result.kind);
    }
  }
  outcome.status = batchStatus(seen);
  // Answered is final (a replay of the same id would get the same answer); unconfirmed is not:
  // the service may have applied it, so the next run re-sends it with the same id.
  if (!seen.has('unconfirmed')) await written(ctx, () => ctx.state?.settled(outcome.requestId));
}

/**
 * One write to the state while sending. When it fails with a usage error of its own (the disk
 * under the state is full: src/upload/state/health.ts) the run stops with that error (its
 * message and exit code) and false is returned: the rows are not marked accepted, so they stay
 * in doubt or owed and the next run sends them again. Any other failure is a bug and is thrown.
 */
export async function written(ctx: BatchContext, write: () => Promise<void> | undefined): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (!(err instanceof ExitError)) throw err;
    ctx.run.halt('state', err.message, err.hint, err);
    return false;
  }
}

/** One body: the whole batch (its id is the batch's requestId) or a part of it (a new id). */
async function sendGroup(
  batch: PendingBatch,
  group: Group,
  rows: RowRef[],
  outcome: BatchOutcome,
  ctx: BatchContext,
): Promise<BodyResult> {
  const whole = group.depth === 0;
  const id = whole ? outcome.requestId : ctx.newId();
  const parts = whole ? batch.parts : group.indices.map((i) => batch.parts[i]);
  const label = whole
    ? `batch ${batch.index} (rows ${outcome.firstRow}-${outcome.lastRow})`
    : `batch ${batch.index} part of ${rows.length} (rows ${rows[0].row}-${rows[rows.length - 1].row})`;
  const result = await exchange(
    {
      path: ctx.settings.path,
      body: buildBody(framingFor(id, { ...ctx.settings, type: batch.type ?? ctx.settings.type }), parts),
      headers: () => ({ 'idempotency-key': id }),
      label,
    },
    ctx.exchange,
    {
      ...ctx.deps,
      onRequest: () => {
        ctx.deps.onRequest?.();
        outcome.requests++;
        if (whole) outcome.attempts++;
      },
    },
  );
  if (result.httpStatus !== undefined) outcome.httpStatus = result.httpStatus;
  if (result.kind !== 'answer') return result;
  const { answer } = result;
  if (result.verdict === 'ok') {
    if (ctx.settings.format === 'legacy' && isLegacyFail(answer.body))
      return {
        kind: 'rejected',
        status: answer.status,
        verdict: readRejection(answer.status, answer.body),
        tooLarge: false,
      };
    return { kind: 'accepted' };
  }
  return {
    kind: 'rejected',
    status: answer.status,
    verdict: readRejection(answer.status, answer.body),
    tooLarge: answer.status === 413,
  };
}
