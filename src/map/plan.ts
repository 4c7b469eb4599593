import type { Language, LegacyKind, PayloadFormat } from '../shared/types.js';
import { type FieldDef, type FieldSet, fieldSet, findField } from './fields.js';
import type { ColumnSource, FieldRule, Mapping } from './mapping-file.js';
import { DEFAULT_BOOLEAN_WORDS, DEFAULT_NUMBER_FORMAT, type NumberFormat } from './values.js';

/**
 * The column -> field plan, built ONCE per file (per distinct header), never per row:
 * explicit mapping rules first, then columns that carry canonical names (`price`, `name@en`,
 * `priceInfo.price`, `customs.color`).
 */
export interface PlanContext {
  format: PayloadFormat;
  kind: LegacyKind;
  /** Language of plain text columns. */
  language: Language;
  /** IANA zone for dates without offset. */
  zone: string;
  /** The user set them: they beat the mapping file's own (flags > env > config > mapping > defaults). */
  languageGiven?: boolean;
  zoneGiven?: boolean;
  mapping?: Mapping;
}

export interface Plan {
  set: FieldSet;
  rules: FieldRule[];
  language: Language;
  zone: string;
  listSeparator: string;
  /** Payload path (no indices) -> the source column(s), for issues found after building. */
  columnsByPath: Map<string, string>;
  /** The lookup for rows with no unparseable value (shared, not built per row). */
  lookup: { columnsByPath: Map<string, string> };
  /** Columns nothing reads. */
  ignored: string[];
  /** Mapped columns the file does not have. */
  missing: { target: string; column: string }[];
}

const LANG_SUFFIX = /^(.*)@(ko|en|ja)$/i;

function canonicalRule(field: FieldDef, number: NumberFormat): FieldRule {
  return {
    field,
    sources: [],
    stripHtml: false,
    trim: true,
    number,
    booleans: DEFAULT_BOOLEAN_WORDS,
    explicit: false,
  };
}

/** Canonical names are matched case-insensitively (`SKU`, `Price`). */
const lowerIndex = new Map<FieldSet, Map<string, FieldDef>>();
function byLowerName(set: FieldSet): Map<string, FieldDef> {
  let index = lowerIndex.get(set);
  if (!index) {
    index = new Map(set.fields.map((f) => [f.target.toLowerCase(), f]));
    lowerIndex.set(set, index);
  }
  return index;
}

export function canonicalTarget(
  set: FieldSet,
  header: string,
): (ColumnSource & { field: FieldDef }) | undefined {
  const trimmed = header.trim();
  const m = LANG_SUFFIX.exec(trimmed);
  const base = m ? m[1] : trimmed;
  let field = byLowerName(set).get(base.toLowerCase());
  if (!field && set.customs && base.startsWith('customs.') && base.length > 8) field = findField(set, base);
  if (!field) return undefined;
  const language = m ? (m[2].toLowerCase() as Language) : undefined;
  if (language && field.kind !== 'mltext' && field.kind !== 'mllist') return undefined;
  return { field, column: header, language };
}

export function buildPlan(columns: readonly string[], ctx: PlanContext): Plan {
  const set = fieldSet(ctx.format, ctx.kind);
  const mapping = ctx.mapping;
  const number = mapping?.number ?? DEFAULT_NUMBER_FORMAT;
  const rules = new Map<string, FieldRule>();
  const used = new Set<string>();
  const present = new Set(columns);
  const missing: Plan['missing'] = [];
  for (const rule of mapping?.rules ?? []) {
    rules.set(rule.field.target, rule);
    for (const s of rule.sources) {
      used.add(s.column);
      if (!present.has(s.column)) missing.push({ target: rule.field.target, column: s.column });
    }
  }
  if (!mapping || mapping.canonicalColumns) {
    for (const column of columns) {
      if (used.has(column)) continue;
      const hit = canonicalTarget(set, column);
      if (!hit) continue;
      const existing = rules.get(hit.field.target);
      if (existing?.explicit) continue;
      const rule = existing ?? canonicalRule(hit.field, number);
      rule.sources.push({ column, language: hit.language });
      rules.set(hit.field.target, rule);
      used.add(column);
    }
  }
  // Defaults fill what the columns leave empty; a field's own "default" or "const" is more specific.
  const defaultOrigin = new Map<string, string>();
  for (const d of mapping?.defaults ?? []) {
    const target = d.field.target;
    const rule = rules.get(target);
    if (rule && (rule.constValue !== undefined || rule.defaultValue !== undefined)) continue;
    rules.set(target, { ...(rule ?? canonicalRule(d.field, number)), defaultValue: d.value });
    defaultOrigin.set(target, d.origin);
  }
  const columnsByPath = new Map<string, string>();
  for (const rule of rules.values()) {
    const label =
      rule.sources.length > 0
        ? rule.sources.map((s) => s.column).join(', ')
        : (defaultOrigin.get(rule.field.target) ?? '(constant)');
    columnsByPath.set(rule.field.path, label);
  }
  // `sku` also feeds offers.sku unless offer_sku is given.
  if (set.format === 'standard' && !rules.has('offer_sku') && columnsByPath.has('sku')) {
    columnsByPath.set('offers.sku', columnsByPath.get('sku') as string);
  }
  return {
    set,
    rules: [...rules.values()],
    language: ctx.languageGiven ? ctx.language : (mapping?.language ?? ctx.language),
    zone: ctx.zoneGiven ? ctx.zone : (mapping?.zone ?? ctx.zone),
    listSeparator: mapping?.listSeparator ?? '|',
    columnsByPath,
    lookup: { columnsByPath },
    ignored: columns.filter((c) => !used.has(c)),
    missing,
  };
}
