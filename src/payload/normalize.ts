import { isObject } from '../shared/is-object.js';
/**
 * Ready-made payloads (a standard envelope's `@graph`, a legacy array) are taken as they are,
 * except for the spellings the contract itself uses elsewhere (docs/architecture.md section 3): those are
 * accepted, rewritten to the canonical key and reported as a warning.
 */
export interface Respelling {
  from: string;
  to: string;
}

function rename(obj: Record<string, unknown>, from: string, to: string): boolean {
  if (!(from in obj)) return false;
  if (!(to in obj)) obj[to] = obj[from];
  delete obj[from];
  return true;
}

/** Rewrites in place; returns what was respelled. */
export function normalizeStandardNode(node: Record<string, unknown>): Respelling[] {
  const out: Respelling[] = [];
  const cats = Array.isArray(node.category) ? node.category : isObject(node.category) ? [node.category] : [];
  let categoryCode = false;
  for (const c of cats) if (isObject(c) && rename(c, 'code', 'codeValue')) categoryCode = true;
  if (categoryCode) out.push({ from: 'category.code', to: 'category.codeValue' });
  if (isObject(node.brand) && rename(node.brand, 'id', '@id'))
    out.push({ from: 'brand.id', to: 'brand.@id' });
  if (isObject(node.offers) && rename(node.offers, 'availabliltyEnds', 'availabilityEnds')) {
    out.push({ from: 'offers.availabliltyEnds', to: 'offers.availabilityEnds' });
  }
  return out;
}

export function normalizeLegacyObject(obj: Record<string, unknown>): Respelling[] {
  return rename(obj, 'createAt', 'createdAt') ? [{ from: 'createAt', to: 'createdAt' }] : [];
}
