/**
 * Work that must happen however the process ends (the upload state releasing its run lock):
 * at a normal end or process.exit (the 'exit' event), and before a process dies of a signal it
 * re-raises (`dieOf`), which no 'exit' listener would see. Each hook runs once.
 */
const hooks = new Set<() => void>();
let listening = false;

/** Runs every hook registered and not yet removed, once; a failing hook does not stop the others. */
export function runExitHooks(): void {
  for (const hook of [...hooks]) {
    hooks.delete(hook);
    try {
      hook();
    } catch {
      // The process is ending: what one hook could not do, the others still do.
    }
  }
}

/** Registers `hook`; returns the function that removes it (when its work was done otherwise). */
export function atExit(hook: () => void): () => void {
  if (!listening) {
    listening = true;
    // First among the 'exit' listeners: src/storage closes every database in its own.
    process.prependListener('exit', runExitHooks);
  }
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/** Runs the hooks, then dies of `signal` as if nobody had listened (exit status 128 + its number). */
export function dieOf(signal: NodeJS.Signals): void {
  runExitHooks();
  process.kill(process.pid, signal);
}
