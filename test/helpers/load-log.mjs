// Registered with `node --import`: prints every ES module the process loads to stderr, one line
// `LOAD <url>` each (test/cli/startup.test.ts reads which packages a command pulled in).
// Written with writeSync to fd 2: a hook thread's process.stderr is flushed through the main
// thread, and a command that exits at once (help, version) lost those lines on a busy machine.
import * as module from 'node:module';

if (typeof module.registerHooks === 'function') {
  // Node 22.15+: hooks on the main thread.
  const { writeSync } = await import('node:fs');
  module.registerHooks({
    load(url, context, next) {
      if (url.startsWith('file:')) writeSync(2, `LOAD ${url}\n`);
      return next(url, context);
    },
  });
} else {
  const hook =
    'import { writeSync } from "node:fs";' +
    'export async function load(url, context, next) {' +
    ' if (url.startsWith("file:")) writeSync(2, "LOAD " + url + "\\n");' +
    ' return next(url, context); }';
  module.register(`data:text/javascript,${encodeURIComponent(hook)}`);
}
