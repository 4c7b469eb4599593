// Reading a V8 .cpuprofile (what `node --cpu-prof` writes): self and total time per function,
// and self time per file/package, so the flame's hot spots can be read as a short table.

import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SPECIAL = new Set(['(program)', '(idle)', '(garbage collector)', '(root)']);

/** `node_modules/<pkg>` for dependencies, the path under `root` for own code, else the name. */
export function locationOf(url, root) {
  // No url: V8 builtins, native code, and code compiled from strings (ajv's validators).
  if (!url) return '(native or generated)';
  let path = url;
  if (url.startsWith('file://')) {
    try {
      path = fileURLToPath(url);
    } catch {
      path = url;
    }
  }
  if (path.startsWith('node:')) return path;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + '/node_modules/'.length).split('/');
    return `node_modules/${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  return root && path.startsWith(root) ? relative(root, path) : path;
}

const MAX_NAME = 60;

function fileOf(frame, root) {
  if (SPECIAL.has(frame.functionName)) return frame.functionName;
  // ajv compiles schemas to functions named validate<N>, with no url.
  if (!frame.url && /^validate\d+$/.test(frame.functionName)) return '(ajv generated validators)';
  return locationOf(frame.url, root);
}

function keyOf(frame, root) {
  let name = frame.functionName || '(anonymous)';
  // Regular expressions show up under their whole source; a prefix is enough to recognise them.
  if (name.length > MAX_NAME) name = `${name.slice(0, MAX_NAME)}…`;
  if (SPECIAL.has(name)) return name;
  const where = locationOf(frame.url, root);
  return `${name} ${where}:${frame.lineNumber + 1}`;
}

/**
 * Summarises a parsed .cpuprofile. Returns `{ totalMs, functions, files }`, each list sorted by
 * self time: `functions[i] = { key, selfMs, selfPct, totalMs, totalPct }`,
 * `files[i] = { file, selfMs, selfPct }`.
 */
export function summarizeProfile(profile, { root } = {}) {
  const byId = new Map();
  const parent = new Map();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const selfUs = new Map();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // timeDeltas[i] is the time since the previous sample; attribute it to the sample after it.
  for (let i = 0; i < samples.length; i++) {
    const dt = Math.max(0, deltas[i + 1] ?? 0);
    selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + dt);
  }
  let totalUs = 0;
  for (const us of selfUs.values()) totalUs += us;

  const fnSelf = new Map();
  const fnTotal = new Map();
  const fileSelf = new Map();
  const keyCache = new Map();
  const key = (id) => {
    let k = keyCache.get(id);
    if (k === undefined) {
      k = keyOf(byId.get(id).callFrame, root);
      keyCache.set(id, k);
    }
    return k;
  };
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const k = key(id);
    fnSelf.set(k, (fnSelf.get(k) ?? 0) + us);
    const file = fileOf(node.callFrame, root);
    fileSelf.set(file, (fileSelf.get(file) ?? 0) + us);
    // Total time: count this node's time once for every distinct function on its stack.
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const ck = key(cur);
      if (seen.has(ck)) continue;
      seen.add(ck);
      fnTotal.set(ck, (fnTotal.get(ck) ?? 0) + us);
    }
  }
  const pct = (us) => (totalUs ? Math.round((us / totalUs) * 1000) / 10 : 0);
  const ms = (us) => Math.round(us / 100) / 10;
  const functions = [...fnTotal.entries()]
    .map(([k, total]) => {
      const self = fnSelf.get(k) ?? 0;
      return { key: k, selfMs: ms(self), selfPct: pct(self), totalMs: ms(total), totalPct: pct(total) };
    })
    .sort((a, b) => b.selfMs - a.selfMs);
  const files = [...fileSelf.entries()]
    .map(([file, us]) => ({ file, selfMs: ms(us), selfPct: pct(us) }))
    .sort((a, b) => b.selfMs - a.selfMs);
  const idle = fnSelf.get('(idle)') ?? 0;
  // startTime and endTime are in microseconds: the thread's whole life, idle included.
  const wallMs = profile.endTime > profile.startTime ? ms(profile.endTime - profile.startTime) : ms(totalUs);
  return { totalMs: ms(totalUs), busyMs: ms(totalUs - idle), wallMs, functions, files };
}

/** Self time by directory (a pipeline stage): dist/map for dist/map/values.js, a package, or the name. */
export function byDirectory(summary) {
  const dirs = new Map();
  for (const f of summary.files) {
    const m = /^(dist|src)\/([^/]+)\//.exec(f.file);
    const dir = m ? `${m[1]}/${m[2]}` : f.file.startsWith('node:') ? 'node: internals' : f.file;
    dirs.set(dir, (dirs.get(dir) ?? 0) + f.selfMs);
  }
  const pct = (ms) => (summary.totalMs ? Math.round((ms / summary.totalMs) * 1000) / 10 : 0);
  return [...dirs]
    .map(([dir, ms]) => ({ dir, selfMs: Math.round(ms), selfPct: pct(ms) }))
    .sort((a, b) => b.selfMs - a.selfMs);
}

/**
 * The thread a profile of `node --cpu-prof` belongs to, from its file name
 * (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile): 0 is the main thread.
 */
export function threadOfProfile(fileName) {
  const m = /^CPU\.\d+\.\d+\.\d+\.(\d+)\.\d+\.cpuprofile$/.exec(fileName);
  return m ? Number(m[1]) : undefined;
}

/** The functions with the most total (inclusive) time, excluding the root and idle entries. */
export function topByTotal(summary, n = 20, filter = () => true) {
  return summary.functions
    .filter((f) => !SPECIAL.has(f.key) && filter(f))
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, n);
}
