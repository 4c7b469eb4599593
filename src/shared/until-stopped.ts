/**
 * The items until `signal` aborts (Ctrl-C, SIGTERM): a read waiting on a pipe, a FIFO or a slow
 * disk must not hold up the orderly stop. The read still pending is left to end on its own.
 */
export async function* untilStopped<T>(items: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const it = items[Symbol.asyncIterator]();
  let wake: ((stopped: undefined) => void) | undefined;
  const onAbort = () => wake?.(undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  let done = false;
  try {
    while (!signal.aborted) {
      const next = it.next();
      // A read that fails after the stop is nobody's to report.
      next.catch(() => {});
      const got = await new Promise<IteratorResult<T> | undefined>((resolve, reject) => {
        wake = resolve;
        next.then(resolve, reject);
      });
      if (got === undefined) return;
      if (got.done) {
        done = true;
        return;
      }
      yield got.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    // An iterator left early is told so (files closed), without waiting for a read that may never end.
    if (!done) it.return?.()?.catch(() => {});
  }
}
