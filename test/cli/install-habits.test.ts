import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPTIONS, type OptionSpec, optionsOf } from '../../src/cli/option-table.js';
import { feedFiles, SAMPLE_CATALOG } from '../../src/cli/sample.js';
import { genser } from '../helpers/run-cli.js';
import { hasBinary } from '../helpers/system-binary.js';

/** Where settings live (user file, profiles), `genser config`, completion, --version --json, --sample, help. */
const dir = mkdtempSync(join(tmpdir(), 'genser-habits-'));
const xdg = join(dir, 'xdg');
mkdirSync(join(xdg, 'genser'), { recursive: true });
const userFile = join(xdg, 'genser', 'config.json');
writeFileSync(
  userFile,
  JSON.stringify({
    country: 'JP',
    maxChange: '5%',
    profiles: {
      staging: { apiUrl: 'https://staging.example.com', format: 'legacy' },
      production: { apiUrl: 'https://api.example.com' },
    },
  }),
);
const projectFile = join(dir, 'project.json');
writeFileSync(projectFile, JSON.stringify({ country: 'US', profiles: { staging: { batchSize: 50 } } }));

type Line = { name: string; value: unknown; from: string; file?: string; profile?: string };
async function config(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = await genser(['config', ...args, '--json'], { XDG_CONFIG_HOME: xdg, ...env });
  expect(r.code, r.stderr).toBe(0);
  const doc = JSON.parse(r.stdout);
  const line = (name: string) => (doc.settings as Line[]).find((l) => l.name === name) as Line;
  return { doc, line };
}

describe('where settings live', () => {
  it('the user config file sits under the project file, and a profile over both', async () => {
    const plain = await config(['upload', '--config', projectFile]);
    expect(plain.line('country')).toMatchObject({ value: 'US', file: projectFile });
    expect(plain.line('maxChange')).toMatchObject({ value: '5%', file: userFile });
    expect(plain.line('apiUrl')).toMatchObject({ value: null, from: 'unset' });
    expect(plain.doc.configFiles).toMatchObject({ project: projectFile, user: userFile });

    const staging = await config(['upload', '--config', projectFile], { GENSER_PROFILE: 'staging' });
    expect(staging.doc.profile).toBe('staging');
    expect(staging.line('apiUrl')).toMatchObject({
      value: 'https://staging.example.com',
      file: userFile,
      profile: 'staging',
      from: `${userFile} profile "staging" "apiUrl"`,
    });
    expect(staging.line('batchSize')).toMatchObject({ value: 50, file: projectFile, profile: 'staging' });
    // The profile's format beats nothing set elsewhere; the flag beats the profile.
    expect(staging.line('format')).toMatchObject({ value: 'legacy', profile: 'staging' });
    const flagged = await config(['upload', '--format', 'standard', '--profile', 'production']);
    expect(flagged.line('format')).toMatchObject({ value: 'standard', from: '--format' });
    expect(flagged.line('apiUrl')).toMatchObject({ value: 'https://api.example.com', profile: 'production' });
  });

  it('an unknown profile names the ones defined', async () => {
    const r = await genser(['config', 'upload', '--profile', 'prod'], { XDG_CONFIG_HOME: xdg });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no profile "prod" (--profile) in ${userFile}`);
    expect(r.stderr).toContain('hint: profiles defined: staging, production');
  });

  it('genser config shows values as written, the state directory in use, and takes the command’s own flags', async () => {
    const empty = join(dir, 'no-xdg');
    const r = await genser(['config', 'upload', '--max-change', '7%', '--state', join(dir, 'st')], {
      XDG_CONFIG_HOME: empty,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/maxChange\s+7%\s+--max-change/);
    expect(r.stdout).not.toContain('"kind"');
    expect(r.stdout).toContain(`state directory      ${join(dir, 'st')} (--state)`);
    expect(r.stdout).toContain(`user config file     none (no ${join(empty, 'genser', 'config.json')})`);
    const sandbox = await config(['upload', '--sandbox'], { XDG_CONFIG_HOME: empty });
    expect(sandbox.doc.stateDir).toBeNull();
    const defaults = await config(['upload'], { XDG_CONFIG_HOME: empty, XDG_STATE_HOME: '/var/st' });
    expect(defaults.doc).toMatchObject({ stateDir: '/var/st/genser', stateDirFrom: 'XDG_STATE_HOME' });
    expect(defaults.line('maxChange')).toMatchObject({ value: '20%', from: 'default' });

    const wrong = await genser(['config', 'upload', '--port', '1'], { XDG_CONFIG_HOME: empty });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('genser: genser upload has no option --port');
  });
});

const haveBash = hasBinary('bash', 'the bash completion test');

describe('genser completion', () => {
  it('bash: commands, each command’s own flags and the values of list flags, from the option table', async () => {
    const r = await genser(['completion', 'bash']);
    expect(r.code).toBe(0);
    for (const name of optionsOf('upload')) {
      const spec = OPTIONS[name] as OptionSpec<unknown>;
      if (!spec.hidden) expect(r.stdout).toContain(spec.flag.replace(/^-\w, /, '').replace(/ .*$/, ''));
    }
  });

  it.skipIf(!haveBash)('bash completes commands, flags and values with that script', async () => {
    const r = await genser(['completion', 'bash']);
    const script = join(dir, 'genser.bash');
    writeFileSync(script, r.stdout);
    const complete = (...words: string[]) => {
      const run = spawnSync(
        'bash',
        [
          '-c',
          `source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _genser; echo "\${COMPREPLY[*]}"`,
          script,
          ...words,
        ],
        { encoding: 'utf8' },
      );
      return run.stdout.trim();
    };
    expect(complete('genser', 'upl')).toBe('upload');
    expect(complete('genser', 'upload', '--form')).toBe('--format');
    expect(complete('genser', 'upload', '--format', '')).toBe('standard legacy');
    expect(complete('genser', 'upload', '--type', '')).toBe('create_product update_product');
    expect(complete('genser', 'events', 'send', '--type', 'view')).toBe('view_product');
    expect(complete('genser', 'validate', '--reporter', 'ju')).toBe('junit');
    // Another command's flag is not offered.
    expect(complete('genser', 'search', '--por')).toBe('');
    expect(complete('genser', 'completion', '')).toBe('bash zsh fish');
  });

  it('zsh and fish from the same table; another shell is refused', async () => {
    const zsh = await genser(['completion', 'zsh']);
    expect(zsh.stdout).toMatch(/^#compdef genser\n/);
    expect(zsh.stdout).toContain('bashcompinit');
    const fish = await genser(['completion', 'fish']);
    expect(fish.stdout).toContain(
      "complete -c genser -n '__fish_seen_subcommand_from upload; and not __fish_seen_subcommand_from events' -l format -x -a 'standard legacy'",
    );
    const csh = await genser(['completion', 'csh']);
    expect(csh.code).toBe(2);
    expect(csh.stderr).toContain('no completion for the shell "csh"');
  });
});

describe('small habits', () => {
  it('--version --json: genser, Node, the SQLite backend and the event schema collection', async () => {
    const r = await genser(['--version', '--json']);
    expect(r.code).toBe(0);
    const v = JSON.parse(r.stdout);
    expect(v).toMatchObject({ version: '0.1.0', node: process.versions.node, eventSchemas: '1.0.0' });
    expect(['node', 'better-sqlite3']).toContain(v.sqlite.backend);
  });

  it('each command’s help holds its own details only', async () => {
    const search = await genser(['search', '--help']);
    expect(search.stdout).toContain('--instance-key');
    expect(search.stdout).not.toContain('generated');
    expect(search.stdout).toMatch(/--timeout[^\n]*\n?[^\n]*default:\s+10/);
    const convert = await genser(['convert', '--help']);
    expect(convert.stdout).not.toMatch(/init:|genser\.mapping\.json/);
    const upload = await genser(['upload', '--help']);
    expect(upload.stdout).not.toMatch(/events backfill|runs:|stock:/);
  });

  it('upload --sample: the shipped catalog, only into the sandbox or a dry run', async () => {
    const real = await genser(['upload', '--sample', '--api-url', 'http://127.0.0.1:9']);
    expect(real.code).toBe(2);
    expect(real.stderr).toContain(
      '--sample uploads made-up products: it goes only to the embedded sandbox or a dry run',
    );
    const both = await genser(['upload', 'x.csv', '--sample', '--sandbox']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--sample takes no feed');
    // The Quick start test runs `upload --sample --sandbox` itself; here, what it reads.
    expect(feedFiles([], { sample: true, dryRun: true })).toEqual([SAMPLE_CATALOG]);
    expect(readFileSync(SAMPLE_CATALOG, 'utf8').trim().split('\n')).toHaveLength(26);
    expect(feedFiles(['a.csv'], {})).toEqual(['a.csv']);
  });
});
