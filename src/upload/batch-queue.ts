import { Batcher, type PendingBatch, type RowRef } from './batcher.js';
import { ResumeGroups } from './resume.js';
import type { EnvelopeType, SendPlan, UploadSettings } from './types.js';

/**
 * The run's batches waiting to be dispatched, in `ready`: one batcher per envelope type (an
 * envelope has one type; both envelopes frame to the same size), and the rebuilt batches of a
 * crashed run (./resume.ts).
 */
export class BatchQueue {
  readonly ready: PendingBatch[] = [];
  private readonly counter = { next: 1 };
  private readonly batchers = new Map<EnvelopeType, Batcher>();
  private readonly resumed = new ResumeGroups(this.counter);

  constructor(
    private readonly settings: UploadSettings,
    private readonly framingBytes: number,
    /** Batches carry their type (the state records it). */
    private readonly typed: boolean,
  ) {}

  add(json: Uint8Array, ref: RowRef, plan: SendPlan): void {
    if (plan.resume) {
      const batch = this.resumed.add(json, ref, { ...plan, resume: plan.resume });
      if (batch) this.ready.push(batch);
    } else this.batcherFor(plan.type).add(json, ref);
  }

  /** The last partial batches, and the rows of crashed batches that could not be rebuilt. */
  finish(): void {
    for (const left of this.resumed.leftovers()) this.batcherFor(left.type).add(left.json, left.ref);
    for (const batcher of this.batchers.values()) batcher.finish();
  }

  private batcherFor(type: EnvelopeType): Batcher {
    let batcher = this.batchers.get(type);
    if (!batcher) {
      batcher = new Batcher(
        {
          maxCount: this.settings.batchSize,
          maxBytes: this.settings.maxBatchBytes,
          framingBytes: this.framingBytes,
          counter: this.counter,
          ...(this.typed ? { type } : {}),
        },
        (batch) => this.ready.push(batch),
      );
      this.batchers.set(type, batcher);
    }
    return batcher;
  }
}
