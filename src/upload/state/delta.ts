import { createHash } from 'node:crypto';
import type { RowRef } from '../batcher.js';
import type { SendPlan, StateHooks } from '../types.js';
import type { UploadState } from './store.js';

/**
 * The delta of a run against the state: a row whose payload bytes hash to what the service last
 * accepted for its SKU is not sent (unless `full`); a SKU never accepted goes as
 * `create_product`, a known one as `update_product`.
 */
export interface DeltaCounts {
  new: number;
  changed: number;
  unchanged: number;
}

export function payloadHash(json: Uint8Array): string {
  return createHash('sha256').update(json).digest('base64url').slice(0, 22);
}

export class Delta implements StateHooks {
  readonly counts: DeltaCounts = { new: 0, changed: 0, unchanged: 0 };

  constructor(
    private readonly state: UploadState,
    private readonly full: boolean,
  ) {}

  plan(sku: string | undefined, json: Uint8Array): SendPlan | undefined {
    // No SKU, nothing to remember it by: sent every time.
    if (sku === undefined) {
      this.counts.new++;
      return { type: 'create_product' };
    }
    const hash = payloadHash(json);
    const last = this.state.acceptedHash(sku);
    if (last === undefined) {
      this.counts.new++;
      return { type: 'create_product', hash };
    }
    if (last === hash && !this.full) {
      this.counts.unchanged++;
      return undefined;
    }
    if (last !== hash) this.counts.changed++;
    else this.counts.unchanged++;
    return { type: 'update_product', hash };
  }

  accepted(rows: readonly RowRef[]): void {
    this.state.accepted(rows);
  }
}

/** `12 new, 340 changed, 49,648 unchanged (not sent)`; with --full the unchanged were sent. */
export function deltaLine(counts: DeltaCounts, full: boolean): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return `${n(counts.new)} new, ${n(counts.changed)} changed, ${n(counts.unchanged)} unchanged (${full ? 'sent again: --full' : 'not sent'})`;
}
