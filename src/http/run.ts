import { setMaxListeners } from 'node:events';
import { ExitCode, type ExitCodeValue } from '../shared/errors.js';

/**
 * The state one sending run shares between its requests: whether it was told to stop and why,
 * and whether the host has answered yet. A stop is soft (no new requests, no more retries;
 * requests in flight finish); Ctrl-C adds a hard cut of what is still in flight after a grace.
 */

/**
 * input: the feed could not be read on (a usage error mid-file); state: the run's state could not
 * be written (a full disk, said by its own usage error); internal: a bug.
 */
export type StopReason = 'auth' | 'unavailable' | 'interrupted' | 'endpoint' | 'input' | 'state' | 'internal';

/**
 * The exit code of a run that stopped early (docs/upload.md "Exit codes"). An interrupted run
 * exits as the signal that stopped it (the `interrupt`'s abort reason): 143 for SIGTERM, else 130.
 */
export function stopExitCode(reason: StopReason, interrupt?: AbortSignal): ExitCodeValue {
  if (reason === 'interrupted' && interrupt?.reason === 'SIGTERM') return ExitCode.terminated;
  return {
    auth: ExitCode.auth,
    unavailable: ExitCode.unavailable,
    interrupted: ExitCode.interrupted,
    endpoint: ExitCode.usage,
    input: ExitCode.usage,
    state: ExitCode.usage,
    internal: ExitCode.internal,
  }[reason];
}

export interface RunStop {
  reason: StopReason;
  message: string;
  hint?: string;
  /** What stopped an `input` or `internal` run, rethrown once the report is out (its exit code). */
  error?: unknown;
}

export class SendRun {
  private readonly softController = new AbortController();
  private readonly hardController = new AbortController();
  private graceTimer: NodeJS.Timeout | undefined;
  private readonly onInterrupt = () => {
    this.halt('interrupted', 'interrupted: no new requests were started; requests in flight were let finish');
    this.graceTimer = setTimeout(() => this.hardController.abort(), this.graceMs);
    this.graceTimer.unref();
  };
  stop: RunStop | undefined;
  /** Set once any HTTP answer came back: a DNS failure before it is a wrong host, not an outage. */
  reached = false;

  constructor(
    private readonly interrupt: AbortSignal | undefined,
    private readonly graceMs: number,
  ) {
    // Every request in flight and every retry waiting listens to these (up to 64 of each at
    // --concurrency 64): not a leak, so no warning.
    setMaxListeners(0, this.softController.signal, this.hardController.signal);
    if (interrupt?.aborted) this.onInterrupt();
    else interrupt?.addEventListener('abort', this.onInterrupt, { once: true });
  }

  /** Aborted at the first stop: no new requests, no more retries. */
  get soft(): AbortSignal {
    return this.softController.signal;
  }

  /** Aborted after Ctrl-C's grace: cuts requests still in flight. */
  get hard(): AbortSignal {
    return this.hardController.signal;
  }

  get stopped(): boolean {
    return this.softController.signal.aborted;
  }

  /** The first stop wins; later ones (the other requests in flight) change nothing. */
  halt(reason: StopReason, message: string, hint?: string, error?: unknown): void {
    if (this.stop) return;
    this.stop = { reason, message, hint };
    if (error !== undefined) this.stop.error = error;
    this.softController.abort();
  }

  /** Why a row or event was not sent: the stop's message. */
  get stopMessage(): string {
    return this.stop?.message ?? 'run stopped';
  }

  dispose(): void {
    this.interrupt?.removeEventListener('abort', this.onInterrupt);
    if (this.graceTimer) clearTimeout(this.graceTimer);
  }
}
