import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { type ScriptedServer, scriptedServer } from '../upload/servers.js';

/**
 * A real sandbox (in this process, 127.0.0.1 port 0) behind a gate: while the gate is held
 * (`hold()`), requests wait until `open()`, then are forwarded and their answers passed back.
 * `next()` resolves when the next request arrives, so a test can stop the CLI while that request
 * is in flight.
 */
export interface GatedSandbox {
  url: string;
  sandbox: RunningSandbox;
  front: ScriptedServer;
  hold(): void;
  next(): Promise<void>;
  open(): void;
  close(): Promise<void>;
}

export async function gatedSandbox(keys: { apiKey: string; serviceKey: string }): Promise<GatedSandbox> {
  const sandbox = await startSandbox({
    port: 0,
    host: '127.0.0.1',
    quiet: true,
    log: memoryLogger(),
    ...keys,
  });
  let gate: Promise<void> = Promise.resolve();
  let open = () => {};
  const seen: (() => void)[] = [];
  const front = await scriptedServer(async (req, res) => {
    for (const s of seen.splice(0)) s();
    await gate;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
        headers[name] = value;
    const answer = await fetch(`${sandbox.url}${req.path}`, { method: 'POST', headers, body: req.body });
    res.writeHead(answer.status, {
      'content-type': answer.headers.get('content-type') ?? 'application/json',
    });
    res.end(await answer.text());
  });
  return {
    url: front.url,
    sandbox,
    front,
    hold() {
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
    next: () => new Promise<void>((resolve) => seen.push(resolve)),
    open: () => open(),
    async close() {
      open();
      await front.close();
      await sandbox.close();
    },
  };
}

const bin = join(import.meta.dirname, '..', '..', 'bin', 'genser.js');

export interface Spawned {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr holds `text`. */
  said(text: string): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The built CLI (bin/genser.js) as a child process of its own, so a test can send it signals. */
export function spawnGenser(args: string[], env: NodeJS.ProcessEnv): Spawned {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH, NO_COLOR: '1', GENSER_THREADS: '0', ...env },
  });
  let out = '';
  let err = '';
  const waiting: { text: string; resolve(): void }[] = [];
  child.stdout.on('data', (c) => {
    out += String(c);
  });
  child.stderr.on('data', (c) => {
    err += String(c);
    for (const w of [...waiting])
      if (err.includes(w.text)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    said: (text) =>
      err.includes(text)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.push({ text, resolve })),
    exited,
  };
}
