import { type RunStop, stopExitCode } from '../http/run.js';
import type { RunningSandbox } from '../sandbox/index.js';
import { ExitCode, ExitError, UsageError } from '../shared/errors.js';
import { dieOf } from '../shared/exit-hooks.js';
import type { Logger } from '../shared/logger.js';
import type { BackendChoice } from '../storage/sqlite.js';

/**
 * The skeleton the four sending commands share (`upload`, `stock`, `events send`, `events
 * backfill`): the orderly stop on Ctrl-C and SIGTERM, the embedded sandbox (`--sandbox`), the
 * "no url / no key" messages, and the ending that turns the run's stop into the exit code after
 * the summary and reports are out.
 */

/** Which service a command sends to: its url and key are named differently. */
export type Service = 'products' | 'events';

const MISSING = {
  products: {
    url: 'no product API url: set --api-url or GENSER_API_URL (or "apiUrl" in genser.config.json)',
    key: 'no API key: set GENSER_API_KEY, or --api-key-file FILE (or "apiKeyFile" in genser.config.json)',
    keyHint: 'the key is never taken from a flag value',
    sandboxIgnores: (url: string) =>
      `--sandbox uploads into an embedded sandbox: the API url ${url} is not used`,
  },
  events: {
    url: 'no collection host given',
    key: 'no service key given',
    keyHint: 'set GENSER_SERVICE_KEY, or put the key in a file and pass --service-key-file FILE',
    sandboxIgnores: (url: string) =>
      `--sandbox sends into an embedded sandbox: the base url ${url} is not used`,
  },
} as const;

/** Where a run sends: the url and key, each with the hint a command adds when it is missing. */
export interface TargetGiven {
  url?: string;
  key?: string;
  /** The command's own hint for a missing url (each says where else to try). */
  urlHint: string;
  /** Appended to the key's hint (products) or replacing it (events: the key's own hint is complete). */
  keyHint?: string;
}

/** A missing url or key: a usage error, before anything is read. */
export function requireTarget(service: Service, given: TargetGiven): { url: string; key: string } {
  const text = MISSING[service];
  if (!given.url) throw new UsageError(text.url, given.urlHint);
  if (!given.key)
    throw new UsageError(
      text.key,
      service === 'products' && given.keyHint ? `${text.keyHint}; ${given.keyHint}` : text.keyHint,
    );
  return { url: given.url, key: given.key };
}

export interface SandboxWanted {
  country?: string;
  db?: string;
  sqlite?: BackendChoice;
}

/** `--sandbox`: an embedded sandbox on 127.0.0.1, a free port; the url given is not used. */
export async function startEmbeddedSandbox(
  service: Service,
  wanted: SandboxWanted,
  givenUrl: string | undefined,
  log: Logger,
): Promise<RunningSandbox> {
  if (givenUrl) log.warn(MISSING[service].sandboxIgnores(givenUrl));
  const { startSandbox } = await import('../sandbox/index.js');
  const sandbox = await startSandbox({
    port: 0,
    host: '127.0.0.1',
    quiet: true,
    log,
    ...(wanted.country !== undefined ? { country: wanted.country } : {}),
    ...(wanted.db !== undefined ? { db: wanted.db } : {}),
    ...(wanted.sqlite !== undefined ? { sqlite: wanted.sqlite } : {}),
  });
  log.info(`sandbox: started an embedded sandbox at ${sandbox.url}`);
  return sandbox;
}

export interface SignalStop {
  /** Aborted on the first Ctrl-C or SIGTERM; its reason is the signal's name. */
  signal: AbortSignal;
  /** The logger of the moment (a spinner's once it is up: the warning must not share its line). */
  say: Logger;
  release(): void;
}

/**
 * Ctrl-C, and SIGTERM (cron, systemd and Kubernetes stop jobs with it), alike: stop reading and
 * taking work, let what is in flight finish, then the summary, the reports and exit 130 (SIGINT)
 * or 143 (SIGTERM). A second signal quits at once. Installed before the run reads anything.
 */
export function signalStop(log: Logger, message: string): SignalStop {
  const controller = new AbortController();
  const stop: SignalStop = {
    signal: controller.signal,
    say: log,
    release() {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    },
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      process.exit(signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted);
    }
    stop.say.warn(`interrupted: ${message} (Ctrl-C again to quit at once)`);
    controller.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return stop;
}

/** What a run's ending needs to know: how it stopped, whether it read anything, its own exit code. */
export interface RunEnd {
  stop?: RunStop;
  /** Nothing was read: a first file that failed (no such file) is a plain usage error. */
  nothingRead: boolean;
  /** The exit code when the run did not stop early (0, or 1 for data problems). */
  code: number;
}

/**
 * The ending: a run that failed before its first row throws its one line and hint; otherwise
 * `print` writes the summary and reports, then the stop (if any) becomes the exit code.
 */
export function endRun(end: RunEnd, interrupt: AbortSignal | undefined, print: () => void): number {
  const { stop } = end;
  if (stop?.error !== undefined && end.nothingRead) throw stop.error;
  print();
  if (!stop) return end.code;
  if (stop.error !== undefined) throw stop.error;
  throw new ExitError(stopExitCode(stop.reason, interrupt), stop.message, stop.hint);
}

/** What the skeleton starts before the run: `--sandbox`'s embedded sandbox, when asked. */
export interface SendingOptions {
  stopMessage: string;
  /** The run reads stdin (a feed named `-`): closed after a stop, so a writer that keeps it open does not hold the exit. */
  stdin?: NodeJS.ReadStream;
  sandbox?: { service: Service; wanted: SandboxWanted; givenUrl?: string };
}

/**
 * The skeleton itself: the signal stop first (so a signal during the first read is an orderly
 * stop too), the embedded sandbox, then the run; the stop released and the sandbox closed
 * whatever happens.
 */
export async function withSending<T>(
  log: Logger,
  options: SendingOptions,
  body: (run: { stop: SignalStop; sandbox?: RunningSandbox }) => Promise<T>,
): Promise<T> {
  const stop = signalStop(log, options.stopMessage);
  let sandbox: RunningSandbox | undefined;
  try {
    const want = options.sandbox;
    if (want) sandbox = await startEmbeddedSandbox(want.service, want.wanted, want.givenUrl, log);
    return await body({ stop, ...(sandbox ? { sandbox } : {}) });
  } finally {
    stop.release();
    await sandbox?.close();
    // Stopped by a signal: the process exits with 143 / 130 once the ending is out. A read still
    // blocked on a pipe or FIFO whose writer waits would hold that exit up: if anything still
    // holds the process a moment later (an unref'd timer fires only then), it dies of the signal
    // as if nobody had listened, which the shell sees as the same status (as convert does).
    if (stop.signal.aborted) {
      options.stdin?.destroy();
      const signal = stop.signal.reason as NodeJS.Signals;
      setTimeout(() => dieOf(signal), 500).unref();
    }
  }
}
