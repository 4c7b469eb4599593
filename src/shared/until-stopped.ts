/**
 * The items until `signal` aborts (Ctrl-C, SIGTERM): a read waiting on a pipe, a FIFO or a slow
 * disk must not hold up the orderly stop. The read still pending is left to end on its own; the
 * source is told it was left (`return`), without waiting for that read. An iterator object
 * rather than an async generator: one promise per item on the hot path of the upload.
 */
export function untilStopped<T>(items: AsyncIterable<T>, signal: AbortSignal): AsyncIterableIterator<T> {
  const it = items[Symbol.asyncIterator]();
  const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
  let wake: ((result: IteratorResult<T>) => void) | undefined;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    signal.removeEventListener('abort', onAbort);
    it.return?.()?.catch(() => {});
  };
  const onAbort = () => {
    wake?.(done);
    end();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next(): Promise<IteratorResult<T>> {
      if (ended || signal.aborted) {
        end();
        return Promise.resolve(done);
      }
      const next = it.next();
      return new Promise<IteratorResult<T>>((resolve, reject) => {
        wake = resolve;
        next.then((result) => {
          if (result.done) {
            ended = true;
            signal.removeEventListener('abort', onAbort);
          }
          resolve(result);
        }, reject);
      });
    },
    return(): Promise<IteratorResult<T>> {
      end();
      return Promise.resolve(done);
    },
  };
}
