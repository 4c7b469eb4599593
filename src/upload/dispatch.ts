import { InFlight } from '../http/in-flight.js';
import { Pacer } from '../http/pacer.js';
import { oneLine } from '../http/response.js';
import { type BatchContext, runBatch, written } from './batch-run.js';
import type { PendingBatch } from './batcher.js';
import type { BatchOutcome } from './types.js';

/**
 * Full batches, from the batcher to the sender: at most `concurrency` in flight (the caller
 * waits for a slot, so reading pauses), none after the run stopped (their rows are `not sent`),
 * each with its BatchOutcome for the report. With --dry-run, batches are only counted.
 */
export class Dispatcher {
  readonly batches: BatchOutcome[] = [];
  private readonly inFlight: InFlight;

  constructor(
    private readonly ctx: BatchContext,
    /** Bytes of the envelope head and tail, added to every body. */
    private readonly framingBytes: number,
  ) {
    this.inFlight = new InFlight(ctx.settings.concurrency);
    // Requests on the wire adapt under --concurrency (docs/networks.md, "Sending that adapts").
    ctx.deps.pacer ??= Pacer.adaptive(ctx.settings.concurrency);
  }

  /** The concurrency reached, and the most allowed (--concurrency). */
  get concurrency(): { reached: number; max: number } {
    return this.ctx.deps.pacer!.reached;
  }

  async dispatch(batch: PendingBatch): Promise<void> {
    const { ctx } = this;
    const { stats } = ctx.ledger;
    const bytes = this.framingBytes + batch.bytes;
    const outcome = batchOutcome(batch, bytes, batch.requestId ?? ctx.newId());
    this.batches.push(outcome);
    if (!ctx.settings.dryRun) {
      await this.inFlight.slot(() => ctx.run.stopped);
      if (ctx.run.stopped) {
        await written(ctx, () => ctx.state?.notAccepted?.(batch.rows, batch.parts));
        return ctx.ledger.notSent(batch.rows, batch.index, ctx.run.stopMessage);
      }
      // Recorded before the first byte goes: after a crash the next run re-sends it with this id.
      // Not recorded (a full disk), it is not sent: the run stops.
      if (!(await written(ctx, () => ctx.state?.sending(batch, outcome.requestId))))
        return ctx.ledger.notSent(batch.rows, batch.index, ctx.run.stopMessage);
    }
    stats.batches++;
    stats.bytes += bytes;
    if (ctx.settings.dryRun) {
      outcome.status = 'dry_run';
      return;
    }
    // When the batch went out and when its last answer came, for the HTML report's time line.
    outcome.startedMs = (ctx.deps.now ?? Date.now)() - stats.startedAt;
    this.inFlight.add(
      runBatch(batch, outcome, ctx)
        .catch(async (err: unknown) => {
          // A bug: the rows' outcome is unknown, and the run stops (exit 70) rather than go on.
          const message = oneLine(String(err));
          ctx.ledger.settle(batch.rows, 'unconfirmed', batch.index, 'internal', message);
          await ctx.state?.notAccepted?.(batch.rows, batch.parts).catch(() => {});
          outcome.status = 'unconfirmed';
          ctx.run.halt('internal', message, undefined, err);
        })
        .finally(() => {
          outcome.endedMs = (ctx.deps.now ?? Date.now)() - stats.startedAt;
        }),
    );
  }

  /** Waits for every batch in flight. */
  drain(): Promise<void> {
    return this.inFlight.drain();
  }
}

function batchOutcome(batch: PendingBatch, bytes: number, requestId: string): BatchOutcome {
  return {
    index: batch.index,
    firstRow: batch.rows[0].row,
    lastRow: batch.rows[batch.rows.length - 1].row,
    rows: batch.rows.length,
    bytes,
    status: 'not_sent',
    attempts: 0,
    requests: 0,
    requestId,
  };
}
