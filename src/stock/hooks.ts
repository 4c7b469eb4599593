import type { RowRef } from '../upload/batcher.js';
import { payloadHash } from '../upload/state/delta.js';
import type { UploadState } from '../upload/state/store.js';
import type { SendPlan, StateHooks } from '../upload/types.js';

/**
 * The upload state's part in a stock run: every merged payload goes (as `update_product`: the
 * service has the product), and what the service accepts becomes the SKU's last accepted
 * payload, so a later upload's delta and `--missing` start from the new stock. Rows not
 * accepted are kept for `genser upload --retry-failed`. Stock batches are not recorded for
 * resuming: a stock file is sent again as a whole.
 */
export class StockHooks implements StateHooks {
  /** The history id of this run, once started. */
  runId?: string;

  constructor(private readonly state: UploadState) {}

  plan(_sku: string | undefined, json: Uint8Array): SendPlan {
    return { type: 'update_product', hash: payloadHash(json) };
  }

  accepted(rows: readonly RowRef[], parts: readonly Uint8Array[]): void {
    this.state.accepted(rows, parts);
  }

  notAccepted(rows: readonly RowRef[], parts: readonly Uint8Array[]): void {
    if (this.runId !== undefined) this.state.saveRetry(this.runId, rows, parts);
  }

  sending(): void {}

  settled(): void {}
}
