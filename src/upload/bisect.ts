/**
 * What to do after the server rejected a batch (400, legacy processCode FAIL, 413): a pure
 * planner. When the server names the bad products by index (and the SKU, when given, matches),
 * those are rejected and the rest re-sent at once; otherwise the batch is split in halves and
 * each half re-sent, until single products are isolated or the depth limit is reached.
 */

export interface ServerRowError {
  /** Position in the sent batch's `@graph` / array. */
  index?: number;
  sku?: string;
  pointer?: string;
  message?: string;
}

export interface Rejection {
  index: number;
  message: string;
}

export interface RejectionPlan {
  /** Products (indices into the sent batch) that are rejected for good. */
  rejected: Rejection[];
  /** Groups of indices into the sent batch to send again, each as its own request. */
  resend: number[][];
}

export interface RejectionInput {
  /** SKUs of the sent batch's products, in order (undefined where unknown). */
  skus: readonly (string | undefined)[];
  /** The per-product errors the server gave, if any. */
  errors: readonly ServerRowError[];
  /** The server's overall message for this rejection. */
  message: string;
  /** How many times this batch's products have been split already. */
  depth: number;
  maxDepth: number;
  /** 413: the body was too large, so no product is to blame until it stands alone. */
  tooLarge?: boolean;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

export function planRejection(input: RejectionInput): RejectionPlan {
  const count = input.skus.length;
  if (count === 0) return { rejected: [], resend: [] };
  const named = input.tooLarge ? new Map<number, string>() : namedRejections(input);
  if (named.size > 0) {
    const rejected = [...named].map(([index, message]) => ({ index, message }));
    const rest = range(0, count).filter((i) => !named.has(i));
    return { rejected, resend: rest.length > 0 ? [rest] : [] };
  }
  if (count === 1 || input.depth >= input.maxDepth) {
    const message = input.errors.find((e) => e.message)?.message ?? input.message;
    return { rejected: range(0, count).map((index) => ({ index, message })), resend: [] };
  }
  const mid = Math.ceil(count / 2);
  return { rejected: [], resend: [range(0, mid), range(mid, count)] };
}

/** Server errors whose index is in range and whose SKU, when given, agrees with ours. */
function namedRejections(input: RejectionInput): Map<number, string> {
  const out = new Map<number, string>();
  for (const error of input.errors) {
    const { index } = error;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= input.skus.length)
      continue;
    const ours = input.skus[index];
    if (error.sku !== undefined && ours !== undefined && error.sku !== ours) continue;
    const message = error.pointer
      ? `${error.pointer}: ${error.message ?? input.message}`
      : (error.message ?? input.message);
    const previous = out.get(index);
    out.set(index, previous ? `${previous}; ${message}` : message);
  }
  return out;
}

/** Enough splits to reach single products, plus one for a server whose named indices were wrong. */
export function maxDepthFor(batchSize: number): number {
  return Math.ceil(Math.log2(Math.max(1, batchSize))) + 2;
}
