import type { NetworkSettings } from '../http/network.js';
import type { Reporter } from '../report/reporters.js';
import type { Logger } from '../shared/logger.js';

/**
 * What the CLI layer hands every command: where output goes, the logger, the environment, and
 * which settings the user set (so a mapping file's own defaults apply only under the others).
 * Commands return their exit code or throw an `ExitError`; `src/cli/main.ts` turns either into
 * the process's exit code.
 */
export interface CommandContext {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** Names of the settings given by flag, environment or config file (not defaults). */
  explicit: ReadonlySet<string>;
  /** The reports to write at the end (`--reporter`, `--json`, `--report`), parsed before any work. */
  reporters?: Reporter[];
  /** Proxy and CAs for the commands that make requests (docs/networks.md). */
  network?: NetworkSettings;
}
