/**
 * The items of a source of batches, one by one. An iterator object rather than an async
 * generator: an item of the batch in hand costs one resolved promise, and the source (a large
 * async generator) is stepped once per batch, not once per item.
 */
export function flatten<T>(batches: AsyncIterator<T[]>): AsyncIterableIterator<T> {
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
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next: () => (i < batch.length ? Promise.resolve({ done: false, value: batch[i++] }) : pull()),
    async return(): Promise<IteratorResult<T>> {
      batch = [];
      i = 0;
      await batches.return?.(undefined);
      return { done: true, value: undefined };
    },
  };
}
