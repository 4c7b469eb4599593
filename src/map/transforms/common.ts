import type { Issue, ReadItem, SourceRecord } from '../../shared/types.js';

/**
 * What shop-export transforms share. A transform reshapes one file's reads before mapping
 * (docs/presets.md): it may merge rows, drop rows with a count, and add derived columns named
 * `genser:...` that the preset maps. Issues pass through in order; nothing is dropped silently.
 */
export interface TransformContext {
  /** The run's start: sale windows are open or closed at this instant. */
  runDate: Date;
}

export type RecordTransform = (
  reads: AsyncIterable<ReadItem>,
  ctx: TransformContext,
) => AsyncGenerator<ReadItem>;

/** Derived columns carry this prefix: no shop exports a column named like it. */
export const DERIVED = 'genser:';

export function text(fields: Record<string, unknown>, column: string): string {
  const v = fields[column];
  if (v === undefined || v === null) return '';
  return (typeof v === 'string' ? v : String(v)).trim();
}

export function recordItem(record: SourceRecord): ReadItem {
  return { type: 'record', record };
}

/**
 * Products a transform leaves out on purpose, counted by reason, said once per file; and the
 * file's records accounted for (docs/presets.md, "Every record accounted for"): each record read
 * became a row (`kept`), was merged into another row (a variant's product row, an image row, a
 * store view), was left out with a reason, or was not used with a warning of its own (`ignored`).
 */
export class LeftOut {
  private readonly counts = new Map<string, { n: number; records: number; rows: number[] }>();
  /** Records read (of the shape a transform reshapes) and records put out as rows. */
  read = 0;
  kept = 0;
  /** Records not used, each with a warning of its own (a store view that cannot be placed). */
  ignored = 0;

  /** One product left out, at its first row, with all its records (a Shopify product's variant rows). */
  add(reason: string, row: number, records = 1): void {
    let c = this.counts.get(reason);
    if (!c) {
      c = { n: 0, records: 0, rows: [] };
      this.counts.set(reason, c);
    }
    c.n++;
    c.records += records;
    if (c.rows.length < 5) c.rows.push(row);
  }

  count(reason: string): number {
    return this.counts.get(reason)?.n ?? 0;
  }

  /** One file-level warning per reason (code `left_out`): counted, never an error; then the accounting. */
  *issues(file: string): Generator<ReadItem> {
    let leftOut = 0;
    for (const [reason, { n, records, rows }] of this.counts) {
      leftOut += records;
      const withRecords = records === n ? '' : ` (${records} records with their variant and image rows)`;
      const issue: Issue = {
        severity: 'warning',
        code: 'left_out',
        file,
        value: reason,
        // A product of several rows (Shopify) counts once, at its first row.
        message: `left out on purpose, not an error: ${reason}: ${n}${withRecords} (row${n === 1 ? '' : 's'} ${rows.join(', ')}${n > rows.length ? ', ...' : ''})`,
      };
      yield { type: 'issue', issue };
    }
    const merged = this.read - this.kept - leftOut - this.ignored;
    if (this.read === 0 || this.read === this.kept) return;
    const parts = [
      `${this.kept} became products`,
      merged > 0
        ? `${merged} merged into the product of their rows (product, variant, image or store-view rows)`
        : '',
      leftOut > 0 ? `${leftOut} left out on purpose (above)` : '',
      this.ignored > 0 ? `${this.ignored} not used (warned above)` : '',
    ].filter(Boolean);
    const issue: Issue = {
      severity: 'warning',
      code: 'records',
      file,
      value: String(this.read),
      message: `every record accounted for, not an error: ${this.read} records read: ${parts.join(', ')}`,
    };
    yield { type: 'issue', issue };
  }
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const US_DAY = /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * A shop's date (ISO 8601 with or without offset, or Magento's `M/D/YY`) as epoch ms;
 * undefined when it is not one. Dates without a zone are read as UTC: sale windows are compared
 * by the day, and a few hours either way do not change which price a nightly run sends.
 */
export function looseDateMs(raw: string): number | undefined {
  const s = raw.trim();
  if (s === '') return undefined;
  const day = ISO_DAY.exec(s);
  if (day) return Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
  const us = US_DAY.exec(s);
  if (us) {
    const year = us[3].length === 2 ? 2000 + Number(us[3]) : Number(us[3]);
    return Date.UTC(
      year,
      Number(us[1]) - 1,
      Number(us[2]),
      Number(us[4] ?? 0),
      Number(us[5] ?? 0),
      Number(us[6] ?? 0),
    );
  }
  const withZone = /[zZ]|[+-]\d{2}:?\d{2}$/.test(s) ? s : `${s.replace(' ', 'T')}Z`;
  const ms = Date.parse(withZone);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Whether a sale price applies at `now`: a sale with no dates always does; `to` given as a plain
 * date includes that whole day (shops say "ends 31 March" and mean its end).
 */
export function saleOpen(from: string, to: string, now: Date): boolean {
  const t = now.getTime();
  const start = looseDateMs(from);
  if (start !== undefined && t < start) return false;
  const end = looseDateMs(to);
  if (end !== undefined) {
    const wholeDay = ISO_DAY.test(to.trim()) || (US_DAY.test(to.trim()) && !/[ T]/.test(to.trim()));
    if (t >= end + (wholeDay ? 86_400_000 : 0)) return false;
  }
  return true;
}

/** The price to send: the sale price while its window is open, else the regular one. */
export function finalPrice(regular: string, sale: string, from: string, to: string, now: Date): string {
  if (sale !== '' && saleOpen(from, to, now)) return sale;
  return regular;
}
