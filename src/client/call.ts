/**
 * The handle a `genser.call(...)` returns (contract 4.4): `.success(cb)` and `.error(cb)` chain,
 * and each callback runs exactly once, also when it is attached after the call settled. A
 * callback that throws does not stop the others: its error is rethrown on its own task so the
 * page's console still shows it.
 */
export type CallName = 'searchProducts' | 'DI' | 'CL';

/** Why a call failed; see docs/client.md. */
export type ErrorReason =
  | 'config' // no endpoint configured
  | 'invalid' // the call's name or parameters are wrong; nothing was sent
  | 'no-request-id' // DI or CL without the search's requestId: nothing was sent
  | 'network' // the request did not reach the backend (offline, refused, CORS)
  | 'timeout' // no answer within timeoutMs
  | 'http' // the backend answered 4xx or 5xx (`status` says which)
  | 'bad-answer'; // a 2xx whose body is not a search answer

export interface CallError {
  call: string;
  reason: ErrorReason;
  message: string;
  /** The HTTP status, for reason 'http'. */
  status?: number;
}

export interface Call<T> {
  success(callback: (result: T) => void): Call<T>;
  error(callback: (error: CallError) => void): Call<T>;
}

export interface Settle<T> {
  call: Call<T>;
  resolve(value: T): void;
  reject(error: CallError): void;
}

function runLater(fn: () => void): void {
  void Promise.resolve().then(fn);
}

function runSafely<V>(callback: (value: V) => void, value: V): void {
  try {
    callback(value);
  } catch (err) {
    setTimeout(() => {
      throw err;
    }, 0);
  }
}

export function settleable<T>(): Settle<T> {
  // 0 pending, 1 succeeded, 2 failed; the first outcome wins (a late answer after a time-out is dropped).
  let state = 0;
  let outcome: T | CallError;
  let onSuccess: ((r: T) => void)[] = [];
  let onError: ((e: CallError) => void)[] = [];
  const finish = (to: number, value: T | CallError) => {
    if (state !== 0) return;
    state = to;
    outcome = value;
    const list: ((v: never) => void)[] = to === 1 ? onSuccess : onError;
    onSuccess = [];
    onError = [];
    for (const cb of list) runSafely(cb, value as never);
  };
  const call: Call<T> = {
    success(callback) {
      if (state === 0) onSuccess.push(callback);
      else if (state === 1) runLater(() => runSafely(callback, outcome as T));
      return call;
    },
    error(callback) {
      if (state === 0) onError.push(callback);
      else if (state === 2) runLater(() => runSafely(callback, outcome as CallError));
      return call;
    },
  };
  return { call, resolve: (v) => finish(1, v), reject: (e) => finish(2, e) };
}
