/** `to` (a larger array) holding `from`'s elements first: how a growing typed array is grown. */
export function grownFrom<T extends Uint8Array | Int32Array | Uint32Array | Float64Array>(to: T, from: T): T {
  to.set(from);
  return to;
}
