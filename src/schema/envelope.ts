import { tokenText } from '../shared/json-pointer.js';
import { getAllErrorsValidator } from './schemas.js';

/**
 * A ready standard envelope's members besides `@graph` (contract 2.7), checked as the service
 * checks them (schemas/standard-envelope.schema.json, `$defs/members`): `agent` is required,
 * `@context`, `specversion` and `type` have fixed values. Its products are checked one by one as
 * they are read; these are checked once the whole envelope has been read.
 */
export interface EnvelopeProblem {
  severity: 'error' | 'warning';
  /** `envelope` (the service refuses it) or `envelope_recommended`. */
  code: 'envelope' | 'envelope_recommended';
  message: string;
}

const RECOMMENDED = ['@context', 'specversion', 'id', 'type'];
const SCHEMA = 'standard-envelope-members';

/**
 * `members`: each member read (name -> parsed value); `unread`: names of members too large to
 * keep (present, not checked).
 */
export function envelopeProblems(
  members: Record<string, unknown>,
  unread: readonly string[] = [],
): EnvelopeProblem[] {
  const out: EnvelopeProblem[] = [];
  const validate = getAllErrorsValidator(SCHEMA);
  if (!validate(members)) {
    for (const e of validate.errors ?? []) {
      const member =
        e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : '';
      if (member !== '' && unread.includes(member)) continue;
      const at = tokenText(e.instancePath.slice(1));
      if (unread.some((u) => at === u || at.startsWith(`${u}/`))) continue;
      out.push({
        severity: 'error',
        code: 'envelope',
        message: describe(e.keyword, at, member, e.params, members),
      });
    }
  }
  const missing = RECOMMENDED.filter((m) => !(m in members) && !unread.includes(m));
  if (missing.length > 0) {
    out.push({
      severity: 'warning',
      code: 'envelope_recommended',
      message: `the envelope has no ${missing.join(', ')} (recommended by the contract, section 2.7: "@context": "https://schema.org/", "specversion": "1.0", a unique "id", "type": "create_product" or "update_product"); genser upload sends its own envelope with them`,
    });
  }
  return out;
}

function describe(
  keyword: string,
  at: string,
  member: string,
  params: Record<string, unknown>,
  members: Record<string, unknown>,
): string {
  const value = valueAt(members, at);
  const got = value === undefined ? '' : `; got ${JSON.stringify(value)}`;
  if (keyword === 'required') {
    const where = at === '' ? 'the envelope' : `the envelope's "${at}"`;
    const sample =
      member === 'agent' ? ' ({"@type": "Organization", "name": "your shop"}: the sending system)' : '';
    return `${where} has no "${member}"${sample}, which the service requires (contract 2.7): it answers 400`;
  }
  if (keyword === 'const')
    return `the envelope's "${at}" must be ${JSON.stringify(params.allowedValue)}${got} (contract 2.7): the service answers 400`;
  if (keyword === 'enum') {
    const allowed = (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(' or ');
    return `the envelope's "${at}" must be ${allowed}${got} (contract 2.7): the service answers 400`;
  }
  return `the envelope's "${at}" is invalid (${keyword})${got} (contract 2.7): the service answers 400`;
}

function valueAt(root: Record<string, unknown>, path: string): unknown {
  if (path === '') return undefined;
  let node: unknown = root;
  for (const part of path.split('/')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}
