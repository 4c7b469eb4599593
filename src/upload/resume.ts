import type { PendingBatch, RowRef } from './batcher.js';
import type { EnvelopeType, SendPlan } from './types.js';

/**
 * Batches of a crashed run, rebuilt: rows the state says were in flight under an envelope id are
 * held until all of that envelope's rows (same bytes, same order) are read, then sent as one
 * batch with the same id, so the service can answer it as the request it already has. An
 * envelope that cannot be rebuilt (a row changed or left the feed) gives its rows back at the end,
 * to be sent as new batches.
 */
interface Group {
  type: EnvelopeType;
  rows: (RowRef | undefined)[];
  parts: (Uint8Array | undefined)[];
  filled: number;
}

export class ResumeGroups {
  private readonly groups = new Map<string, Group>();

  constructor(private readonly counter: { next: number }) {}

  /** Holds the row; returns the rebuilt batch when it was the envelope's last missing row. */
  add(
    json: Uint8Array,
    ref: RowRef,
    plan: SendPlan & { resume: NonNullable<SendPlan['resume']> },
  ): PendingBatch | undefined {
    const { envelopeId, position, size } = plan.resume;
    let group = this.groups.get(envelopeId);
    if (!group) {
      group = { type: plan.type, rows: new Array(size), parts: new Array(size), filled: 0 };
      this.groups.set(envelopeId, group);
    }
    if (group.parts[position] === undefined) group.filled++;
    group.rows[position] = ref;
    group.parts[position] = json;
    if (group.filled < size) return undefined;
    this.groups.delete(envelopeId);
    const parts = group.parts as Uint8Array[];
    return {
      index: this.counter.next++,
      rows: group.rows as RowRef[],
      parts,
      bytes: parts.reduce((n, p) => n + p.length, 0) + parts.length - 1,
      type: group.type,
      requestId: envelopeId,
    };
  }

  /** Rows of envelopes that could not be rebuilt, in feed order. */
  leftovers(): { json: Uint8Array; ref: RowRef; type: EnvelopeType }[] {
    const out: { json: Uint8Array; ref: RowRef; type: EnvelopeType }[] = [];
    for (const g of this.groups.values())
      g.rows.forEach((ref, i) => {
        if (ref) out.push({ json: g.parts[i]!, ref, type: g.type });
      });
    this.groups.clear();
    return out.sort((a, b) => a.ref.row - b.ref.row);
  }
}
