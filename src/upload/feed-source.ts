import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../cli/terminal.js';
import { type ExitCodeValue, ExitError } from '../errors.js';
import { feedItems } from '../pipeline.js';
import type { FeedItem, FeedOptions, Issue } from '../types.js';

/** A feed row as the upload engine takes it: a valid row may come already serialized. */
export interface UploadItem extends FeedItem {
  /** `payload` as UTF-8 JSON, made once (on the worker thread); `payload` is then absent. */
  json?: Uint8Array;
}

export type WorkerMessage =
  | {
      t: 'items';
      /** File names so far; rows name theirs by index. */
      files: string[];
      rows: Int32Array;
      lines: Int32Array;
      fileIndex: Uint16Array;
      skus: (string | undefined)[];
      /** The product's JSON for valid rows, null otherwise. */
      texts: (string | null)[];
      /** Rows with issues or invalid, whole: [position in the chunk, item without payload]. */
      others: [number, Omit<FeedItem, 'payload'>][];
    }
  | { t: 'log'; level: 'info' | 'warn' | 'error' | 'debug'; m: string }
  | { t: 'end' }
  | { t: 'error'; code?: ExitCodeValue; m: string; hint?: string; stack?: string };

const WORKER_URL = new URL('./feed-worker.js', import.meta.url);
/** Shared by every issue-free row from the worker; nobody mutates it. */
const NO_ISSUES: Issue[] = [];

/**
 * The feed for an upload: on a worker thread when it can be (files, built code), else in this
 * thread (stdin, or running from TypeScript sources in tests). Same items either way.
 */
export function uploadItems(
  files: string[],
  feed: FeedOptions,
  log: Logger,
  stdin: NodeJS.ReadableStream | undefined,
  options: { threaded?: boolean; workerUrl?: URL } = {},
): AsyncIterable<UploadItem> {
  const threaded = options.threaded ?? worthAThread(files);
  const url = options.workerUrl ?? WORKER_URL;
  return threaded && existsSync(fileURLToPath(url))
    ? threadedItems(files, feed, log, url)
    : feedItems(files, feed, log, stdin);
}

/** Below a few MB a second thread's start-up (modules, schema compilation) costs more than it saves. */
const THREAD_MIN_BYTES = 4 * 1024 * 1024;

function worthAThread(files: string[]): boolean {
  if (process.env.GENSER_UPLOAD_WORKER === '0' || availableParallelism() < 2) return false;
  if (files.includes('-')) return false;
  let bytes = 0;
  for (const file of files) {
    try {
      bytes += statSync(file).size;
    } catch {
      return false; // the reader reports it, with its own message
    }
  }
  return bytes >= THREAD_MIN_BYTES;
}

async function* threadedItems(
  files: string[],
  feed: FeedOptions,
  log: Logger,
  url: URL,
): AsyncGenerator<UploadItem> {
  const worker = new Worker(url, { workerData: { files, feed, chunkRows: 256, ahead: 8 } });
  const inbox: WorkerMessage[] = [];
  let notify: (() => void) | undefined;
  let failure: Error | undefined;
  let exited = false;
  const wake = () => {
    notify?.();
    notify = undefined;
  };
  worker.on('message', (m: WorkerMessage) => {
    inbox.push(m);
    wake();
  });
  worker.on('error', (err) => {
    failure = err;
    wake();
  });
  worker.on('exit', () => {
    exited = true;
    wake();
  });
  try {
    for (;;) {
      const m = inbox.shift();
      if (!m) {
        if (failure) throw failure;
        if (exited) throw new Error('the feed worker stopped without finishing');
        await new Promise<void>((resolve) => (notify = resolve));
        continue;
      }
      if (m.t === 'items') {
        worker.postMessage('more');
        let next = 0;
        for (let i = 0; i < m.rows.length; i++) {
          const text = m.texts[i];
          // Encoding happens here: this thread is otherwise idle while the worker validates.
          const json = text === null ? undefined : Buffer.from(text);
          if (next < m.others.length && m.others[next][0] === i) {
            const item: UploadItem = m.others[next++][1];
            if (json) item.json = json;
            yield item;
          } else {
            yield {
              file: m.files[m.fileIndex[i]],
              row: m.rows[i],
              line: m.lines[i],
              sku: m.skus[i],
              issues: NO_ISSUES,
              valid: true,
              json,
            };
          }
        }
      } else if (m.t === 'log') log[m.level](m.m);
      else if (m.t === 'end') return;
      else {
        if (m.code !== undefined) throw new ExitError(m.code, m.m, m.hint);
        const err = new Error(m.m);
        if (m.stack) err.stack = m.stack;
        throw err;
      }
    }
  } finally {
    // Also when the run stops early (401, Ctrl-C): nothing more is read.
    await worker.terminate();
  }
}
