import { type MapProblem, mapRow } from '../map/map-row.js';
import type { Mapping } from '../map/mapping-file.js';
import { buildPlan, type Plan } from '../map/plan.js';
import { suggestPreset } from '../map/suggest-preset.js';
import { buildLegacy } from '../payload/legacy.js';
import { normalizeLegacyObject, normalizeStandardNode } from '../payload/normalize.js';
import { buildStandardProduct, builtSize } from '../payload/standard.js';
import { inputTypeFromName } from '../read/input-type.js';
import type { ViewSize } from '../schema/bounded.js';
import { isObject } from '../shared/is-object.js';
import type {
  EncodingName,
  FeedItem,
  FeedOptions,
  InputType,
  Issue,
  ReadItem,
  SourceRecord,
} from '../shared/types.js';
import { timeZoneForCountry } from '../time/zones.js';
import { gtinOf } from '../validate/duplicate-gtins.js';
import { type PayloadValidator, payloadValidator } from '../validate/product.js';
import type { SourceLookup } from '../validate/translate.js';
import { fileItem, issueOf } from './issue-of.js';
import { type KnownEntry, KnownSources, type KnownSourcesData } from './known-sources.js';
import type { ColumnsSeen, ProcessedItem } from './settle.js';
import {
  headerContext,
  keptWithKey,
  placeKept,
  settingsDigest,
  sourceKey,
  sourceKeyText,
} from './source-keys.js';

/**
 * read -> map -> build -> validate, streaming: one FeedItem per source record, in order.
 *
 * Read issues reach the caller as FeedItems too: an issue naming a row is attached to that
 * row's item when the reader also yields the record, otherwise it becomes an item of its own
 * with no payload and `valid: false`. File-level issues (empty file, duplicate header, unused
 * columns, ...) become items with `row: 0` (use `isFileLevel`). Nothing is dropped silently.
 */
export interface FeedStats {
  /** Data records seen (items with row > 0). */
  rows: number;
  valid: number;
  invalid: number;
  /** Warning issues, file-level ones included. */
  warnings: number;
  /** Error issues, file-level ones included. */
  errors: number;
  /** File-level error issues (e.g. an empty file): the run is not clean even with no invalid row. */
  fileErrors: number;
}

export function emptyStats(): FeedStats {
  return { rows: 0, valid: 0, invalid: 0, warnings: 0, errors: 0, fileErrors: 0 };
}

export function isFileLevel(item: FeedItem): boolean {
  return item.row === 0;
}

/** Adds one item to the running counts. */
export function tally(stats: FeedStats, item: FeedItem): void {
  for (const issue of item.issues) {
    if (issue.severity === 'error') stats.errors++;
    else stats.warnings++;
  }
  if (isFileLevel(item)) {
    if (!item.valid) stats.fileErrors++;
    return;
  }
  stats.rows++;
  if (item.valid) stats.valid++;
  else stats.invalid++;
}

/** True when the run has nothing that should fail it (exit 0). */
export function isClean(stats: FeedStats): boolean {
  return stats.invalid === 0 && stats.fileErrors === 0;
}

export interface ReaderOptions {
  encoding: EncodingName;
  delimiter?: string;
  inputType?: InputType;
}

/**
 * Source keys for an upload with state (docs/nightly.md, "Unchanged rows"): each valid row
 * without a read issue gets its key and its warnings (`source`); a row whose key is in `known`
 * comes out `unchanged`, with the SKU it was accepted under and those warnings, and is not mapped.
 */
export interface SourceKeying {
  /** Set before the first record; a worker gets it with each job. */
  known?: KnownSourcesData;
  /**
   * The run's settings digest (src/feed/source-keys.ts), made once by the feed: workers key
   * rows with the main thread's, whichever copy of the code they were loaded from.
   */
  settings?: string;
}

/** The run's options with its date frozen: every row, thread and transform counts from the same instant. */
export function withRunDate(options: FeedOptions): FeedOptions {
  return options.runDate === undefined ? { ...options, runDate: new Date().toISOString() } : options;
}

/**
 * One file's reads to items, a read at a time (synchronous, so the loops above stay thin). Read
 * issues naming a row wait for that row's record and join its item.
 */
export class FileReads {
  private pending: Issue[] = [];

  constructor(private readonly feed: FeedProcessor) {}

  take(item: ReadItem, out: ProcessedItem[]): void {
    if (item.type === 'issue') {
      const issue = item.issue;
      if (issue.row === undefined) out.push(fileItem(issue));
      else this.pending.push(issue);
      return;
    }
    const record = item.record;
    let attached: Issue[] | undefined;
    if (this.pending.length > 0) {
      for (const issue of this.pending) {
        if (issue.row === record.row && issue.file === record.file) {
          attached ??= [];
          attached.push(issue);
        } else out.push(rowIssueItem(issue));
      }
      this.pending = [];
    }
    const columns = this.feed.columnsFor(record);
    // A row with read issues is mapped every time: they are reported on every run.
    const processed: ProcessedItem = this.feed.process(record, attached === undefined);
    if (columns) processed.columns = columns;
    if (attached) {
      processed.issues.unshift(...attached);
      processed.valid = processed.valid && !attached.some((i) => i.severity === 'error');
      if (!processed.valid && this.feed.keepsRecords) processed.record = record.fields;
    }
    out.push(processed);
  }

  /** Issues still waiting at the end of the file (their row never came). */
  end(out: ProcessedItem[]): void {
    for (const issue of this.pending) out.push(rowIssueItem(issue));
    this.pending = [];
  }
}

function rowIssueItem(issue: Issue): FeedItem {
  return {
    file: issue.file,
    row: issue.row ?? 0,
    line: issue.line ?? 0,
    sku: issue.sku,
    issues: [issue],
    valid: issue.severity !== 'error',
  };
}

/** Flat rows that are really ready-made payloads (NDJSON of product nodes, say). */
function effectiveShape(record: SourceRecord, csv: boolean): SourceRecord['shape'] {
  if (record.shape !== 'rows' || csv) return record.shape;
  const f = record.fields;
  if (f['@type'] === 'Product' || isObject(f.offers)) return 'graph';
  if (isObject(f.priceInfo) || Array.isArray(f.categories)) return 'legacy';
  return 'rows';
}

/** Key sets whose plans a processor keeps (FeedProcessor.plans). */
const PLANS_KEPT = 64;

/** Whether the object's keys are exactly `keys`, in order, without allocating. */
export function sameKeys(fields: Record<string, unknown>, keys: string[]): boolean {
  let i = 0;
  for (const k in fields) {
    if (k !== keys[i]) return false;
    i++;
  }
  return i === keys.length;
}

/**
 * Per-run state: the compiled validator, the plan of the current file, the source keys. What
 * needs every row in order (duplicate SKUs, warnings once per file) is the feed's, not this
 * (src/feed/settle.ts): it may see a file's rows in several pieces, on several threads.
 */
export class FeedProcessor {
  private readonly validate: PayloadValidator;
  private readonly zone: string;
  private plan: Plan | undefined;
  private planKeys: string[] = [];
  private fixedColumns = false;
  private readonly graphLookup: SourceLookup = { columnsByPath: new Map(), columnIsPath: true };
  /** With source keys: the run's settings digest, and where the accepted keys' table comes. */
  private readonly keyed: { settings: string; keying: SourceKeying } | undefined;
  private known: { data: KnownSourcesData; table: KnownSources } | undefined;

  constructor(
    private readonly options: FeedOptions,
    private readonly mapping: Mapping | undefined,
    private readonly sources: string[],
    keying?: SourceKeying,
  ) {
    this.validate = payloadValidator(options.format, options.kind, options.strict);
    this.zone = timeZoneForCountry(options.country);
    if (keying) this.keyed = { settings: keying.settings ?? settingsDigest(options, mapping), keying };
  }

  /**
   * Before a file's rows, or a piece of them (a worker's job): a piece of the file before keeps
   * its plan, and its first row's columns are said again (the feed puts the pieces in order).
   */
  startFile(fileIndex: number): void {
    if (fileIndex === this.fileIndex) {
      this.announce = true;
      return;
    }
    this.fileIndex = fileIndex;
    this.fixedColumns = (this.options.inputType ?? inputTypeFromName(this.sources[fileIndex])) === 'csv';
    this.plan = undefined;
    this.planKeys = [];
  }

  private fileIndex = -1;
  /** A new piece of the file: its first row's columns are said even with the plan unchanged. */
  private announce = false;

  /**
   * The plan for this record's columns: changed only when the column set changes. `freshPlan`
   * says whether this call changed it (a field, not a returned pair: this runs twice per row).
   */
  private freshPlan = false;
  /**
   * Plans by their columns, each built (and its mapper compiled: src/map/row-code.ts) once: JSON
   * rows may go back and forth between a few key sets. Bounded, as a feed's key sets may not be.
   */
  private readonly plans = new Map<string, { plan: Plan; keys: string[] }>();
  private planFor(record: SourceRecord): Plan {
    // CSV rows all carry the header's columns: one plan per file. JSON rows may differ in keys.
    if (this.plan !== undefined && (this.fixedColumns || sameKeys(record.fields, this.planKeys))) {
      this.freshPlan = false;
      return this.plan;
    }
    const keys = Object.keys(record.fields);
    const id = JSON.stringify(keys);
    let known = this.plans.get(id);
    if (known === undefined) {
      const plan = buildPlan(keys, {
        format: this.options.format,
        kind: this.options.kind,
        language: this.options.language,
        languageGiven: this.options.languageGiven,
        zone: this.zone,
        zoneGiven: this.options.countryGiven,
        mapping: this.mapping,
      });
      known = { plan, keys };
      if (this.plans.size >= PLANS_KEPT) this.plans.clear();
      this.plans.set(id, known);
    }
    this.plan = known.plan;
    this.planKeys = known.keys;
    this.freshPlan = true;
    return this.plan;
  }

  /** The record's column set when it differs from the last record's (its file's warnings are said before it). */
  columnsFor(record: SourceRecord): ColumnsSeen | undefined {
    if (effectiveShape(record, this.fixedColumns) !== 'rows') return undefined;
    const plan = this.planFor(record);
    if (!this.freshPlan && !this.announce) return undefined;
    this.announce = false;
    // With a mapping file, leaving columns out is a choice; without one, it is often a misspelling.
    const byName = !this.mapping || this.mapping.setOnly;
    const seen: ColumnsSeen = {
      keys: this.planKeys,
      missing: plan.missing.map((m) => ({ column: m.column, target: m.target })),
      ignored: byName ? plan.ignored : [],
    };
    const preset = byName ? suggestPreset(this.planKeys) : undefined;
    if (preset) seen.preset = preset;
    return seen;
  }

  /** One record's item; `keyable`: it has no read issue, so it may be keyed (and skipped). */
  process(record: SourceRecord, keyable = true): FeedItem {
    const shape = effectiveShape(record, this.fixedColumns);
    if (!this.keyed || !keyable) return this.build(record, shape);
    const key = this.keyOf(record, shape);
    const data = this.keyed.keying.known;
    if (data && this.known?.data !== data) this.known = { data, table: new KnownSources(data) };
    const known = data ? this.known!.table.lookup(key) : undefined;
    if (known !== undefined) return this.unchanged(record, known, key);
    const item = this.build(record, shape);
    // A valid row is keyed with its warnings (never with an error: it could not have been accepted).
    if (item.valid && item.payload !== undefined)
      item.source = sourceKeyText(key) + keptWithKey(item.issues, item.gtin);
    return item;
  }

  /** A CSV file's rows all have its header's columns: they are keyed once per header, not per row. */
  private header: { keys: string[]; context: string } | undefined;

  private keyOf(record: SourceRecord, shape: SourceRecord['shape']): Buffer {
    const settings = this.keyed!.settings;
    if (!this.fixedColumns || shape !== 'rows') return sourceKey(settings, record, shape, true);
    this.planFor(record);
    if (this.header?.keys !== this.planKeys)
      this.header = { keys: this.planKeys, context: headerContext(settings, this.planKeys) };
    // A reader's rows have the header's columns; a transform's may have more (Magento's attr.<code>
    // from a parent): values alone would not say which column holds which, so names go in too.
    const named = this.mapping?.transform !== undefined && !sameKeys(record.fields, this.planKeys);
    return sourceKey(this.header.context, record, shape, named);
  }

  /** A row whose key the service accepted under `sku`: its item without mapping it again. */
  private unchanged(record: SourceRecord, known: KnownEntry, key: Buffer): FeedItem {
    const { sku, warnings } = known;
    // The warnings its row had when it was mapped, at this row: reported every night alike; and
    // its GTIN, for the duplicate check (a new row may not take it).
    const kept = warnings === undefined ? { issues: [] } : placeKept(warnings, record, sku);
    const item: FeedItem = {
      file: record.file,
      row: record.row,
      line: record.line,
      sku,
      issues: kept.issues,
      valid: true,
    };
    if (kept.gtin !== undefined) item.gtin = kept.gtin;
    item.unchanged = true;
    // Its key alone (a sharded run keeps other shards' keys: src/nightly/guard.ts).
    item.source = sourceKeyText(key);
    return item;
  }

  private build(record: SourceRecord, shape: SourceRecord['shape']): FeedItem {
    const { format, kind } = this.options;
    let problems: MapProblem[];
    let payload: Record<string, unknown>;
    let lookup: SourceLookup;
    let plan: Plan | undefined;
    let size: ViewSize | undefined;
    if (shape === 'rows') {
      plan = this.planFor(record);
      const mapped = mapRow(plan, record.fields);
      // mapRow's array is the row's own: the validator's problems go on after the mapper's.
      problems = mapped.problems;
      payload =
        format === 'standard' ? buildStandardProduct(mapped.values) : buildLegacy(mapped.values, kind);
      if (format === 'standard') size = builtSize(mapped.units, mapped.longest);
      lookup = mapped.failed ? { columnsByPath: plan.columnsByPath, skip: mapped.failed } : plan.lookup;
    } else {
      problems = [];
      payload = record.fields;
      lookup = this.graphLookup;
      const isGraph = shape === 'graph';
      if (isGraph !== (format === 'standard')) {
        const other = isGraph ? 'standard' : 'legacy';
        return this.finish(record, undefined, [
          {
            code: 'format_mismatch',
            field: '',
            message: `this record is a ready-made ${other} ${isGraph ? 'product node' : 'object'}, but the run is --format ${format}`,
            hint: `run with --format ${other}`,
          },
        ]);
      }
      const respelled = isGraph ? normalizeStandardNode(payload) : normalizeLegacyObject(payload);
      for (const r of respelled) {
        problems.push({
          severity: 'warning',
          code: 'respelled',
          field: r.to,
          column: r.from,
          message: `${r.from} was read as ${r.to}`,
          hint: `write ${r.to}, the key the service documents in its sample`,
        });
      }
    }
    this.validate(payload, lookup, problems, plan, size);
    return this.finish(record, payload, problems);
  }

  /** `--rejects`: invalid items keep their source record. */
  get keepsRecords(): boolean {
    return this.options.keepRecords === true;
  }

  private finish(
    record: SourceRecord,
    payload: Record<string, unknown> | undefined,
    problems: MapProblem[],
  ): FeedItem {
    const { format, kind } = this.options;
    const rawSku = !payload
      ? undefined
      : format === 'standard'
        ? payload.sku
        : kind === 'filters'
          ? payload.name
          : payload.code;
    const sku = typeof rawSku === 'string' && rawSku !== '' ? rawSku : undefined;
    const issues: Issue[] = [];
    let valid = true;
    for (const p of problems) {
      if ((p.severity ?? 'error') === 'error') valid = false;
      issues.push(issueOf(p, record, sku));
    }
    const item: FeedItem = { file: record.file, row: record.row, line: record.line, issues, valid };
    if (sku !== undefined) item.sku = sku;
    const gtin = gtinOf(payload);
    if (gtin !== undefined) item.gtin = gtin;
    if (payload) item.payload = payload;
    if (!valid && this.options.keepRecords) item.record = record.fields;
    return item;
  }
}
