import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../../src/commands/context.js';
import { startProgress } from '../../src/commands/validate.js';
import { streamLogger } from '../../src/shared/logger.js';
import { newStats } from '../../src/upload/engine.js';
import { startProgress as startUploadProgress } from '../../src/upload/progress.js';

/** A terminal of 80x24 that records what is written, and its cursor moves as marks. */
function terminal() {
  let text = '';
  const stream = {
    isTTY: true,
    columns: 80,
    rows: 24,
    write(chunk: string) {
      text += chunk;
      return true;
    },
    cursorTo() {
      text += '<CR>';
      return true;
    },
    moveCursor() {
      text += '<UP>';
      return true;
    },
    clearLine() {
      text += '<CL>';
      return true;
    },
    on() {
      return stream;
    },
    once() {
      return stream;
    },
    removeListener() {
      return stream;
    },
  };
  return { stream, text: () => text };
}

describe('a message while the spinner runs', () => {
  it('validate/convert: the spinner line is cleared before the message, which gets a line of its own', async () => {
    const t = terminal();
    const log = streamLogger({}, t.stream, true);
    const ctx = { stderr: t.stream, log } as unknown as CommandContext;
    const progress = await startProgress(log, ctx, 'validating');
    progress.log.warn('the feed has mixed line ends');
    progress.stop();
    const at = t.text().indexOf('warning: the feed has mixed line ends');
    expect(at).toBeGreaterThan(0);
    expect(t.text().slice(0, at)).toMatch(/<CL>$/);
  });

  it('upload: the same, also for the warning Ctrl-C prints', async () => {
    const t = terminal();
    const log = streamLogger({}, t.stream, true);
    const progress = await startUploadProgress(newStats(), log, { quiet: false, stream: t.stream as never });
    progress.log.warn('interrupted: finishing the requests in flight');
    progress.stop();
    const at = t.text().indexOf('warning: interrupted');
    expect(at).toBeGreaterThan(0);
    expect(t.text().slice(0, at)).toMatch(/<CL>$/);
  });
});
