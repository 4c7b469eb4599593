import { UndiciSender } from '../http/sender.js';
import { ExitCode } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { packageVersion } from '../shared/paths.js';
import type { PayloadFormat } from '../shared/types.js';

/**
 * What `genser upload` and `genser stock` share around the engine: the product API's sender and
 * the orderly stop on Ctrl-C or SIGTERM.
 */

/** The product API's sender: the key in the format's own header (contract 5: apiKey, legacy x-api-key). */
export function productSender(
  to: { apiUrl: string; key: string; format: PayloadFormat },
  connections: number,
  timeoutMs: number,
): UndiciSender {
  return new UndiciSender({
    apiUrl: to.apiUrl,
    connections,
    timeoutMs,
    userAgent: `genser/${packageVersion()}`,
    keyHeader: to.format === 'legacy' ? 'x-api-key' : 'apiKey',
    key: to.key,
  });
}

/**
 * Ctrl-C, and SIGTERM (cron and systemd stop jobs with it): stop taking batches, let the ones in
 * flight finish, then the summary and exit 130; a second Ctrl-C quits at once. `say` gives the
 * logger of the moment (a spinner's, once it is up: the warning must not share its line).
 */
export function orderlyStop(say: () => Logger): { signal: AbortSignal; release(): void } {
  const interrupt = new AbortController();
  const onSignal = () => {
    if (interrupt.signal.aborted) return;
    say().warn('interrupted: finishing the requests in flight (Ctrl-C again to quit at once)');
    interrupt.abort();
    process.once('SIGINT', () => process.exit(ExitCode.interrupted));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: interrupt.signal,
    release() {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    },
  };
}
