import type { NetworkSettings } from '../http/network.js';
import type { Logger } from '../shared/logger.js';
import type { FeedOptions } from '../shared/types.js';
import type { InvalidBudget } from '../upload/budget.js';
import type { Shard } from '../upload/shard.js';
import type { UploadSettings } from '../upload/types.js';
import type { GuardRules } from './guard-rules.js';
import type { MissingMode } from './rows.js';

/** The embedded sandbox a `--sandbox` run sends to: after the send, its daily batch runs at once. */
export interface EmbeddedTarget {
  url: string;
  /** `--sandbox-db`: where the sandbox keeps its products (and what names its state). */
  db?: string;
  runBatch(): Promise<{ applied: number }>;
}

/** Where a run sends: the product API and its key (never printed), or an embedded sandbox. */
export interface NightlyTarget {
  apiUrl: string;
  /** Absent for a dry run without a key: nothing is sent, the url only names the target in the report. */
  key?: string;
  /** Where the key came from (a file, the environment, the sandbox), for the debug line. */
  keyFrom?: string;
  sandbox?: EmbeddedTarget;
}

/**
 * One nightly upload, as the command resolved it (docs/nightly.md): the feed and engine settings,
 * the target, and the state's options. The domain reads no flag and no environment variable.
 */
export interface NightlyPlan {
  files: string[];
  feed: FeedOptions;
  settings: UploadSettings;
  timeoutMs: number;
  /** Undefined for a dry run without --api-url. A dry run sends nothing and keeps no state. */
  target?: NightlyTarget;
  /** `--state DIR`; undefined: the default state directory. */
  state?: string;
  full: boolean;
  missing: MissingMode;
  /** `--missing-after K`: marked out of stock once missing from K complete runs in a row. */
  missingAfter: number;
  /** The guards (docs/nightly.md, "Before and after the run"); undefined: none (a retry run). */
  guards?: GuardRules;
  maxInvalid?: InvalidBudget;
  shard?: Shard;
  /** `--retry-failed`: the last run's rows not accepted, instead of a feed. */
  retry: boolean;
  /** The feed's threads (`--threads`): as src/feed takes them. */
  workers?: number | 'auto';
}

/** What the run needs from its caller: the logger, the environment's state home, and the stop. */
export interface NightlyDeps {
  log: Logger;
  env: NodeJS.ProcessEnv;
  /** Aborted by Ctrl-C or SIGTERM: read no more, send no more, then the ending. */
  interrupt: AbortSignal;
  /** Proxies and CAs (docs/networks.md), as the command resolved them. */
  network?: NetworkSettings;
  /** The feed `-` reads this (touched only then: it creates a handle). */
  stdin?: NodeJS.ReadableStream;
  /** Where the progress shows (a spinner on a TTY, a line every 10 s off one); undefined: none. */
  progress?: NodeJS.WritableStream;
  /** Told the logger of the moment (the spinner's), so a stop warning does not tear it. */
  onLogger?(log: Logger): void;
}
