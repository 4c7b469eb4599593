import { UsageError } from '../shared/errors.js';
import { toLocal } from '../time/zones.js';
import { type FieldDef, type FieldSet, findField } from './fields.js';

/**
 * Values for fields a shop export does not have: a mapping's `defaults` and the CLI's
 * `--set FIELD=VALUE` entries. Either fills a field on every row that lacks it; a column's
 * own value always wins. Dates may be relative to the run (`+30d`, `+1y`, `today`), so a
 * nightly upload keeps a window that moves with it.
 */
export interface FieldDefault {
  field: FieldDef;
  value: string | number | boolean;
  /** Where it came from, for messages: `--set availability_ends=+1y`, `defaults/currency`. */
  origin: string;
}

export interface RunClock {
  /** The run's start: relative dates count from here. */
  runDate: Date;
  /** IANA zone whose calendar day `today` is. */
  zone: string;
}

const RELATIVE = /^(?:([+-])(\d{1,4})([dwmy])|today)$/i;

/** `+30d`, `-1w`, `+6m`, `+1y`, `today` -> the local calendar date `YYYY-MM-DD`; undefined if not relative. */
export function resolveRelativeDate(text: string, clock: RunClock): string | undefined {
  const m = RELATIVE.exec(text.trim());
  if (!m) return undefined;
  const local = toLocal(clock.runDate, clock.zone);
  let { year, month, day } = local;
  if (m[1] !== undefined) {
    const n = Number(m[2]) * (m[1] === '-' ? -1 : 1);
    const unit = m[3].toLowerCase();
    if (unit === 'd') day += n;
    else if (unit === 'w') day += 7 * n;
    else if (unit === 'm') month += n;
    else year += n;
    if (unit === 'm' || unit === 'y') {
      // 31 January + 1 month is the last day of February, not 3 March.
      const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
      if (day > last) day = last;
    }
  }
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.toISOString().slice(0, 10);
}

/**
 * Identifiers that name one product each: the same value on every row would tell the service
 * that every product is the same one.
 */
const PER_PRODUCT_IDENTIFIER: Record<string, string> = {
  sku: 'a SKU names one product: the same SKU on every row makes every row after the first a duplicate',
  offer_sku: 'a sales SKU names one offer: the same one on every row makes all products one offer',
  gtin: 'a GTIN (EAN/UPC/JAN barcode) names one trade item: the same number on every row tells the service that every product is the same item',
  mpn: 'a manufacturer part number names one model: the same one on every row tells the service that every product is the same model',
  code: 'a product code names one product: the same code on every row makes every row after the first a duplicate',
};

/** Why one value for every row (`--set`, a mapping's constant or default) cannot fill `target`. */
export function constantIdentifier(target: string): { message: string; hint: string } | undefined {
  const why = PER_PRODUCT_IDENTIFIER[target];
  if (why === undefined) return undefined;
  return {
    message: `${target} cannot be one value for every row (${why})`,
    hint: `map the column that has it: "${target}": "YOUR COLUMN" in the mapping file's "fields" (docs/feeds.md, "Identifiers")`,
  };
}

/** One default value, checked against its field; relative dates resolved for date fields. */
export function fieldDefault(
  set: FieldSet,
  target: string,
  value: string | number | boolean,
  origin: string,
  clock: RunClock,
): FieldDefault {
  const field = findField(set, target);
  if (!field) {
    const known = set.fields.map((f) => f.target).slice(0, 14);
    throw new UsageError(
      `${origin}: ${target} is not a ${set.format === 'standard' ? 'standard' : `legacy ${set.kind}`} field`,
      `known fields include ${known.join(', ')}${set.fields.length > 14 ? ', ...' : ''} (see docs/feeds.md)`,
    );
  }
  const constant = constantIdentifier(field.target);
  if (constant) throw new UsageError(`${origin}: ${constant.message}`, constant.hint);
  let resolved = value;
  if (typeof value === 'string' && (field.kind === 'date' || field.kind === 'epoch')) {
    resolved = resolveRelativeDate(value, clock) ?? value;
  }
  return { field, value: resolved, origin };
}

/** `--set FIELD=VALUE` entries (repeatable flag) -> defaults; a bad entry is a usage error naming it. */
export function parseSetEntries(entries: readonly string[], set: FieldSet, clock: RunClock): FieldDefault[] {
  const out = new Map<string, FieldDefault>();
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const target = eq > 0 ? entry.slice(0, eq).trim() : '';
    const value = eq > 0 ? entry.slice(eq + 1).trim() : '';
    if (target === '' || value === '') {
      throw new UsageError(
        `--set ${entry}: expected FIELD=VALUE`,
        'e.g. --set currency=KRW or --set availability_ends=+1y (fields: docs/feeds.md)',
      );
    }
    const d = fieldDefault(set, target, value, `--set ${entry}`, clock);
    // The last entry for a field wins, as with any repeated flag.
    out.set(d.field.target, d);
  }
  return [...out.values()];
}

/** Mapping defaults first, `--set` entries over them (the command line beats the file). */
export function mergeDefaults(
  fromMapping: readonly FieldDefault[],
  fromSet: readonly FieldDefault[],
): FieldDefault[] {
  const byTarget = new Map<string, FieldDefault>();
  for (const d of fromMapping) byTarget.set(d.field.target, d);
  for (const d of fromSet) byTarget.set(d.field.target, d);
  return [...byTarget.values()];
}
