/**
 * The items of a source of batches, one by one. An iterator object rather than an async
 * generator: an item of the batch in hand costs one resolved promise, and the source (a large
 * async generator) is stepped once per batch, not once per item.
 */
export function flatten<T>(batches: AsyncIterator<T[]>, stop?: AbortSignal): AsyncIterableIterator<T> {
  let batch: T[] = [];
  let i = 0;
  const pull = async (): Promise<IteratorResult<T>> => {
    for (;;) {
      const next = await batches.next();
      if (next.done) {
        batch = [];
        i = 0;
        return { done: true, value: undefined };
      }
      if (next.value.length === 0) continue;
      batch = next.value;
      i = 1;
      return { done: false, value: batch[0] };
    }
  };
  const end = async (): Promise<IteratorResult<T>> => {
    batch = [];
    i = 0;
    await batches.return?.(undefined);
    return { done: true, value: undefined };
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next() {
      // Stopped: not one more item, not even of the batch in hand.
      if (stop?.aborted) return end();
      return i < batch.length ? Promise.resolve({ done: false, value: batch[i++] }) : pull();
    },
    return: end,
  };
}
