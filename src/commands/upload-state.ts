import { resolve } from 'node:path';
import type { PayloadFormat } from '../shared/types.js';
import { Delta } from '../upload/state/delta.js';
import { finishRun, startRun } from '../upload/state/runs.js';
import { UploadState } from '../upload/state/store.js';
import {
  canonicalApiUrl,
  defaultStateDir,
  ensureStateDir,
  keyFingerprint,
  type StateTarget,
  stateSalt,
} from '../upload/state/target.js';
import type { UploadResult } from '../upload/types.js';

/**
 * The upload state of a run (docs/nightly.md): opened and locked before the feed is read, for
 * every real upload; an embedded `--sandbox` run keeps none unless `--state` is given, so the
 * Quick start stays stateless. A dry run sends nothing and keeps none.
 */
export interface StateRun {
  state: UploadState;
  delta: Delta;
  full: boolean;
  /** The state directory (the guard's spool is written there). */
  dir: string;
  /** Products gone from the feed and sent as out of stock (`--missing out-of-stock`), once counted. */
  gone?: number;
  /** Records the run's start in the history; returns its id. */
  startRun(files: string[], label?: string): string;
  /** Completes the run's history row (never throws: the run's own outcome matters more). */
  finishRun(
    id: string,
    result: UploadResult | undefined,
    exitCode: number,
    report: string | undefined,
    durationMs: number,
  ): void;
}

export interface StateWhere {
  apiUrl: string;
  key: string;
  format: PayloadFormat;
  /** The embedded sandbox's --sandbox-db, when it runs embedded. */
  sandbox?: { db?: string };
}

export function openStateRun(
  s: { state?: string; full?: boolean },
  where: StateWhere,
  env: NodeJS.ProcessEnv,
): StateRun | undefined {
  if (where.sandbox && s.state === undefined) return undefined;
  const dir = s.state ?? defaultStateDir(env);
  ensureStateDir(dir);
  const salt = stateSalt(dir);
  const target: StateTarget = {
    // An embedded sandbox gets a new port every run: its file (or the run itself) names it.
    apiUrl: where.sandbox
      ? `sandbox:${where.sandbox.db ? resolve(where.sandbox.db) : canonicalApiUrl(where.apiUrl)}`
      : canonicalApiUrl(where.apiUrl),
    format: where.format,
    keyFingerprint: keyFingerprint(where.key, salt),
  };
  const state = UploadState.open(dir, target);
  try {
    state.lock();
  } catch (err) {
    state.close();
    throw err;
  }
  const full = s.full === true;
  return {
    state,
    delta: new Delta(state, full),
    full,
    dir,
    startRun(files, label) {
      const id = startRun(state.db, label ?? files.map((f) => (f === '-' ? f : resolve(f))).join(' '));
      this.delta.runId = id;
      return id;
    },
    finishRun(id, result, exitCode, report, durationMs) {
      const sum = result?.summary;
      try {
        finishRun(state.db, id, {
          exitCode,
          durationMs,
          ...(report !== undefined ? { report } : {}),
          ...(sum
            ? {
                counts: {
                  rows: sum.rows,
                  sent: sum.sent,
                  accepted: sum.accepted,
                  rejected: sum.rejected,
                  failed: sum.failed + sum.unconfirmed + sum.notSent,
                  unchanged: sum.unchanged ?? 0,
                },
              }
            : {}),
        });
      } catch {
        // A history row left open reads as a run that did not finish: true enough.
      }
    },
  };
}
