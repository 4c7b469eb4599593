/**
 * Exit codes of docs/architecture.md section 5, and the one error type that carries them.
 * Commands throw `ExitError`; src/cli/main.ts is the one place that turns errors into exit codes.
 */
export const ExitCode = {
  ok: 0,
  data: 1,
  usage: 2,
  auth: 3,
  unavailable: 4,
  locked: 5,
  /** A guard refused the run before anything was sent (docs/nightly.md, "Before and after the run"). */
  guard: 6,
  internal: 70,
  interrupted: 130,
  /** Stopped by SIGTERM (128 + 15), as an orderly stop: the summary and report are still written. */
  terminated: 143,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export class ExitError extends Error {
  readonly exitCode: ExitCodeValue;
  readonly hint?: string;

  constructor(exitCode: ExitCodeValue, message: string, hint?: string) {
    super(message);
    this.name = 'ExitError';
    this.exitCode = exitCode;
    this.hint = hint;
  }
}

/** Usage or configuration problem: bad flag, unreadable file, bad mapping file (exit 2). */
export class UsageError extends ExitError {
  constructor(message: string, hint?: string) {
    super(ExitCode.usage, message, hint);
    this.name = 'UsageError';
  }
}

/** A message that is safe to show, from anything thrown. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * The code of a write that failed for want of space: the system's (no space left, a quota
 * reached) or SQLite's (`SQLITE_FULL`, as src/storage names it); undefined for anything else.
 */
export function fullDiskCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL' ? code : undefined;
}
