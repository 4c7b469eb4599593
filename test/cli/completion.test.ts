import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { genser } from '../helpers/run-cli.js';
import { hasBinary } from '../helpers/system-binary.js';

/**
 * `genser completion zsh|fish` loaded in the real shells (the bash script is tried in
 * install-habits.test.ts): commands, a command's own flags, the values of list flags, and files
 * for a command's other words. zsh completes through compinit in a pseudo-terminal
 * (test/helpers/zsh-complete.zsh; compinit's dump is made once); fish answers `complete -C`.
 */
const dir = mkdtempSync(join(tmpdir(), 'genser-completion-'));
writeFileSync(join(dir, 'feed.csv'), 'sku\n');
const haveZsh = hasBinary('zsh', 'the zsh completion test');
const haveFish = hasBinary('fish', 'the fish completion test');

async function scriptFor(shell: 'zsh' | 'fish'): Promise<string> {
  const r = await genser(['completion', shell]);
  expect(r.code).toBe(0);
  const file = join(dir, `genser.${shell}`);
  writeFileSync(file, r.stdout);
  return file;
}

/** The same questions to each shell: what it offers for each line, sorted. */
const cases: [line: string, offered: string[]][] = [
  ['genser upl', ['upload']],
  ['genser upload --form', ['--format']],
  ['genser upload --format ', ['legacy', 'standard']],
  ['genser upload --type ', ['create_product', 'update_product']],
  ['genser events ', ['backfill', 'example', 'send', 'validate']],
  ['genser events send --type view', ['view_product']],
  ['genser validate --reporter ju', ['junit']],
  ['genser search --por', []],
  ['genser completion ', ['bash', 'fish', 'zsh']],
  ['genser upload fe', ['feed.csv']],
];

describe.skipIf(!haveZsh)('zsh completion, in zsh', () => {
  it('offers commands, a command’s own flags, list values and files', async () => {
    const script = await scriptFor('zsh');
    const helper = join(import.meta.dirname, '..', 'helpers', 'zsh-complete.zsh');
    const dump = join(dir, 'zcompdump');
    for (const [line, offered] of cases) {
      const run = spawnSync('zsh', ['-f', helper, script, dump, line], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 5_000,
      });
      expect(run.error, line).toBeUndefined();
      expect(run.stdout.split('\n').filter(Boolean).sort(), line).toEqual(offered);
    }
  });
});

describe.skipIf(!haveFish)('fish completion, in fish', () => {
  it('offers commands, a command’s own flags, list values and files', async () => {
    const script = await scriptFor('fish');
    for (const [line, offered] of cases) {
      const run = spawnSync(
        'fish',
        ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', script, line],
        {
          cwd: dir,
          encoding: 'utf8',
          timeout: 5_000,
        },
      );
      expect(run.stderr, line).toBe('');
      const words = run.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]);
      expect(words.sort(), line).toEqual(offered);
    }
  });
});
