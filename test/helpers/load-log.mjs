// Registered with `node --import`: prints every ES module the process loads to stderr, one line
// `LOAD <url>` each (test/cli/startup.test.ts reads which packages a command pulled in).
import { register } from 'node:module';

const hook =
  'export async function load(url, context, next) {' +
  ' if (url.startsWith("file:")) process.stderr.write("LOAD " + url + "\\n");' +
  ' return next(url, context); }';
register(`data:text/javascript,${encodeURIComponent(hook)}`);
