import { buildPlan } from '../map/plan.js';
import { resolveFeedMapping } from '../map/presets.js';
import type { FeedOptions } from '../shared/types.js';

/**
 * The feed's source columns as the run reads them (docs/nightly.md, "Before and after the run",
 * mapping drift): every column seen, and those that fed a field (the header through the mapping
 * file, a preset or the canonical names). Told each column set once, as the feed's settler meets
 * it (a CSV file's header; a JSON record whose keys differ from the one before), on this thread:
 * one mapping plan per column set, never per row. Memory: the distinct column names.
 */
export class FeedColumns {
  private readonly all = new Set<string>();
  private readonly mapped = new Set<string>();
  /** Resolved at the first column set: the feed has said a bad mapping file by then. */
  private mapping: { of: ReturnType<typeof resolveFeedMapping> } | undefined;

  constructor(private readonly feed: FeedOptions) {}

  /** A column set of the feed (FeedRowsOptions.onColumns). */
  observe = (_file: string, keys: readonly string[]): void => {
    this.mapping ??= { of: resolveFeedMapping(this.feed) };
    const plan = buildPlan(keys, {
      format: this.feed.format,
      kind: this.feed.kind,
      language: this.feed.language,
      // Which columns feed a field does not depend on the zone.
      zone: 'UTC',
      mapping: this.mapping.of,
    });
    const ignored = new Set(plan.ignored);
    for (const key of keys) {
      this.all.add(key);
      if (!ignored.has(key)) this.mapped.add(key);
    }
  };

  /** The columns that fed a field, sorted; undefined when no column set was seen (no row). */
  list(): string[] | undefined {
    return this.all.size === 0 ? undefined : [...this.mapped].sort();
  }

  /** Of the last complete run's mapped columns, those no row of tonight's feed has. */
  absent(last: readonly string[] | undefined): string[] {
    return (last ?? []).filter((c) => !this.all.has(c));
  }
}
