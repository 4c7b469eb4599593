import type { RowRef } from '../upload/batcher.js';
import { payloadHash } from '../upload/state/delta.js';
import type { UploadState } from '../upload/state/store.js';
import type { EnvelopeType, SendPlan, StateHooks } from '../upload/types.js';

/**
 * The upload state's part in a stock run: every merged payload goes (as `update_product`: the
 * service has the product), and what the service accepts becomes the SKU's last accepted
 * payload, so a later upload's delta and `--missing` start from the new stock. Rows not
 * accepted are kept for `genser upload --retry-failed`. A batch is recorded in flight before it
 * goes, as upload's are, and forgotten once answered: one whose outcome stays unknown (a 500 after
 * the service stored it, a run killed while it waited) leaves its SKUs in doubt, so the next
 * upload sends them again even when the feed matches the payload last accepted (`Delta.inDoubt`).
 */
export class StockHooks implements StateHooks {
  /** The history id of this run, once started. */
  runId?: string;

  constructor(private readonly state: UploadState) {}

  async plan(_sku: string | undefined, json: Uint8Array): Promise<SendPlan> {
    return { type: 'update_product', hash: payloadHash(json) };
  }

  async accepted(rows: readonly RowRef[], parts: readonly Uint8Array[]): Promise<void> {
    await this.state.accepted(rows, parts);
  }

  async notAccepted(rows: readonly RowRef[], parts: readonly Uint8Array[]): Promise<void> {
    if (this.runId !== undefined) await this.state.owe(this.runId, rows, parts);
  }

  async sending(batch: { rows: readonly RowRef[]; type?: EnvelopeType }, envelopeId: string): Promise<void> {
    await this.state.recordInflight(envelopeId, batch.type ?? 'update_product', batch.rows);
  }

  async settled(envelopeId: string): Promise<void> {
    await this.state.forgetInflight([envelopeId]);
  }
}
