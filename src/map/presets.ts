import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../shared/errors.js';
import { packageRoot } from '../shared/paths.js';
import type { FeedOptions } from '../shared/types.js';
import { mergeDefaults, parseSetEntries } from './defaults.js';
import { fieldSet } from './fields.js';
import { loadMapping, type Mapping, type MappingContext, runClock } from './mapping-file.js';

/**
 * Presets are mapping files shipped in the package (`presets/*.json`, docs/presets.md): one per
 * shop export genser knows. `--preset shopify` names one; `--preset ./mine.json` is any mapping file.
 */
export const presetsDir = join(packageRoot, 'presets');

export function presetNames(): string[] {
  return readdirSync(presetsDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
}

/** A preset name or a path -> the mapping file to read. */
export function presetPath(nameOrPath: string): string {
  const looksLikePath = /[/\\]/.test(nameOrPath) || nameOrPath.endsWith('.json');
  if (looksLikePath) return nameOrPath;
  const path = join(presetsDir, `${nameOrPath.toLowerCase()}.json`);
  if (!existsSync(path)) {
    throw new UsageError(
      `unknown preset "${nameOrPath}"`,
      `presets: ${presetNames().join(', ')} (docs/presets.md); or give a mapping file's path`,
    );
  }
  return path;
}

export function loadPreset(nameOrPath: string, ctx: MappingContext): Mapping {
  return loadMapping(presetPath(nameOrPath), ctx);
}

/**
 * The run's mapping from its options: `--mapping FILE` or `--preset NAME|PATH`, with `--set`
 * entries over the file's defaults. Undefined when the run has none of them (canonical columns).
 */
export function resolveFeedMapping(options: FeedOptions): Mapping | undefined {
  if (options.mapping && options.preset) {
    throw new UsageError(
      '--mapping and --preset both name a mapping',
      'give one: a preset is a mapping file shipped with genser (docs/presets.md)',
    );
  }
  const path = options.mapping ?? (options.preset ? presetPath(options.preset) : undefined);
  const mapping = path ? loadMapping(path, options) : undefined;
  if (!options.set || options.set.length === 0) return mapping;
  const set = fieldSet(options.format, options.kind);
  const fromSet = parseSetEntries(options.set, set, runClock(options, mapping?.zone));
  if (mapping) return { ...mapping, defaults: mergeDefaults(mapping.defaults, fromSet) };
  return { file: '--set', defaults: fromSet, canonicalColumns: true, rules: [], setOnly: true };
}
