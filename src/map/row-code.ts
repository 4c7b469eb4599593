import type { FieldRule } from './mapping-file.js';
import type { Plan } from './plan.js';
import { typingOf } from './typed.js';

/**
 * The body of a plan's row mapper (src/map/map-row.ts runs it): one block per rule, in the plan's
 * order, that reads the rule's columns by name and writes its target by name. Made once per
 * header, not per row: the generic loop it replaces looked every column and target up through
 * one site for all of them, and decided each rule's kind again on every row.
 *
 * Names are written as JSON string literals, so no header or target text can inject code. The
 * body sees `f` (the record), `R` (the plan's rules), `P` (the plan), `zone`, `sep` and the
 * helpers `isEmpty`, `scalarOf`, `unusable`, `listItems`, `addLanguage` and the kinds' typing `A`
 * and `T` (src/map/typed.ts); it returns what `mapRow` returns. It depends only on the plan's
 * shape, so equal headers share one.
 */
export function rowCode(plan: Plan): string {
  const out = [
    'const v = {};',
    'const problems = [];',
    'let failed, raw, value, column, parsed, items, langs;',
    // What the row holds (src/map/map-row.ts, MappedRow.units and .longest).
    'let units = 0, longest = 0;',
  ];
  plan.rules.forEach((rule, i) => {
    const kind = rule.field.kind;
    if (kind === 'list') out.push(...listCode(rule, i));
    else if (kind === 'mltext' || kind === 'mllist') out.push(...languagesCode(rule, i, plan));
    else out.push(...scalarCode(rule, i));
  });
  // offers.sku is the sku's unless offer_sku is given: an unusable sku leaves both unfilled.
  out.push(
    "if (failed !== undefined && failed.has('sku') && v.offer_sku === undefined) failed.add('offers.sku');",
    'return { values: v, problems, failed, units, longest };',
  );
  return out.join('\n');
}

const lit = JSON.stringify;
const targetOf = (rule: FieldRule) => `v[${lit(rule.field.target)}]`;

/** A list: every source's items, else the constant's or default's. */
function listCode(rule: FieldRule, i: number): string[] {
  const r = `R[${i}]`;
  return [
    'items = [];',
    ...rule.sources.map((s) => `listItems(${r}, f[${lit(s.column)}], sep, items);`),
    'if (items.length === 0) {',
    `  value = ${r}.constValue ?? ${r}.defaultValue;`,
    `  if (value !== undefined) listItems(${r}, value, sep, items);`,
    '}',
    'if (items.length > 0) {',
    `  ${targetOf(rule)} = items;`,
    '  units += items.length;',
    '  if (items.length > longest) longest = items.length;',
    '}',
  ];
}

/** A text or list per language: each source in its language, else the constant's or default's. */
function languagesCode(rule: FieldRule, i: number, plan: Plan): string[] {
  const r = `R[${i}]`;
  const fallback = rule.language ?? plan.language;
  return [
    'langs = [];',
    ...rule.sources.map(
      (s) => `addLanguage(${r}, P, langs, ${lit(s.language ?? fallback)}, f[${lit(s.column)}]);`,
    ),
    'if (langs.length === 0) {',
    `  value = ${r}.constValue ?? ${r}.defaultValue;`,
    `  if (value !== undefined) addLanguage(${r}, P, langs, ${lit(fallback)}, value);`,
    '}',
    'if (langs.length > 0) {',
    `  ${targetOf(rule)} = langs;`,
    '  units += langs.length;',
    '  if (langs.length > longest) longest = langs.length;',
    rule.field.kind === 'mllist'
      ? '  for (const l of langs) { units += l.items.length; if (l.items.length > longest) longest = l.items.length; }'
      : '',
    '}',
  ];
}

/** A scalar: the first source with a usable value, else the constant or default (no column then), typed by its kind. */
function scalarCode(rule: FieldRule, i: number): string[] {
  const r = `R[${i}]`;
  const out = ['value = undefined;', 'column = undefined;'];
  for (const s of rule.sources) {
    out.push(
      'if (value === undefined) {',
      `  raw = f[${lit(s.column)}];`,
      `  if (!isEmpty(raw)) value = scalarOf(${r}, raw);`,
      `  if (value !== undefined) column = ${lit(s.column)};`,
      '}',
    );
  }
  out.push(
    `if (value === undefined) value = ${r}.constValue !== undefined ? ${r}.constValue : ${r}.defaultValue;`,
  );
  const typing = typingOf(rule.field.kind);
  if ('plain' in typing)
    return [
      ...out,
      'if (value !== undefined) {',
      `  ${targetOf(rule)} = A[${lit(typing.plain)}](value);`,
      '  units++;',
      '}',
    ];
  return [
    ...out,
    'if (value !== undefined) {',
    `  parsed = T[${lit(typing.parsed)}](${r}, value, zone);`,
    '  if (parsed.ok) {',
    `    ${targetOf(rule)} = parsed.value;`,
    '    units++;',
    `  } else failed = unusable(${r}, parsed.error, value, column, problems, failed);`,
    '}',
  ];
}
