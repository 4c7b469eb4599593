import type { LegacyKind } from '../shared/types.js';

/**
 * Legacy v0.3 objects (contract 2.8) from the typed values of `mapRow`, keyed by dotted path.
 * `categories.*` lists are zipped by position into `categories[]`; `customs.<name>` lists
 * become `customs[{name, values}]`; `createdAtEpochMilli` is derived from `createdAt` when
 * not given.
 */
export type LegacyObject = Record<string, unknown>;

function setPath(target: LegacyObject, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (let i = 0; i < parts.length - 1; i++) {
    const key = parts[i];
    let next = node[key] as LegacyObject | undefined;
    if (next === undefined) {
      next = {};
      node[key] = next;
    }
    node = next;
  }
  node[parts[parts.length - 1]] = value;
}

export function buildLegacy(values: Record<string, unknown>, kind: LegacyKind): LegacyObject {
  if (kind === 'filters') {
    const filter: LegacyObject = {};
    if (values.name !== undefined) filter.name = values.name;
    if (values.values !== undefined) filter.values = values.values;
    return filter;
  }
  const out: LegacyObject = {};
  let categories: LegacyObject[] | undefined;
  let customs: LegacyObject[] | undefined;
  for (const [path, value] of Object.entries(values)) {
    if (path.startsWith('categories.')) {
      categories ??= [];
      const key = path.slice('categories.'.length);
      (value as string[]).forEach((item, i) => {
        categories![i] ??= {};
        categories![i][key] = item;
      });
    } else if (path.startsWith('customs.')) {
      customs ??= [];
      customs.push({ name: path.slice('customs.'.length), values: value });
    } else {
      setPath(out, path, value);
    }
  }
  if (categories) out.categories = categories;
  if (customs) out.customs = customs;
  if (out.createdAtEpochMilli === undefined && typeof out.createdAt === 'string') {
    const ms = Date.parse(out.createdAt);
    if (!Number.isNaN(ms)) out.createdAtEpochMilli = ms;
  }
  return out;
}
