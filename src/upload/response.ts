import { answerMessage, oneLine, parseJson } from '../http/response.js';
import { isObject } from '../shared/is-object.js';
import type { ServerRowError } from './bisect.js';

/**
 * Reading the product API's refusals (pure): problem+json bodies with `errors: [{index, sku,
 * pointer, message}]` (docs/upload.md), and legacy answers `{httpStatus, processCode,
 * processValue}` (contract section 2.8), where a 200 whose processCode is FAIL is a refusal.
 */

export interface ServerVerdict {
  message: string;
  errors: ServerRowError[];
}

function rowErrors(value: unknown): ServerRowError[] {
  if (!Array.isArray(value)) return [];
  const out: ServerRowError[] = [];
  for (const e of value) {
    if (!isObject(e)) continue;
    out.push({
      index: typeof e.index === 'number' ? e.index : undefined,
      sku: typeof e.sku === 'string' ? e.sku : undefined,
      pointer: typeof e.pointer === 'string' ? e.pointer : undefined,
      message: typeof e.message === 'string' ? oneLine(e.message) : undefined,
    });
  }
  return out;
}

/** What a legacy processValue says: a string, or an object's message, detail or reason. */
function processValueText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (!isObject(value)) return undefined;
  for (const key of ['message', 'detail', 'reason', 'error'] as const) {
    const v = value[key];
    if (typeof v === 'string' && v.trim()) return v;
  }
  const errors = rowErrors(value.errors).filter((e) => e.message);
  if (errors.length > 0) return errors.map((e) => e.message).join('; ');
  return undefined;
}

/**
 * A legacy FAIL's message. The answer's httpStatus.reasonPhrase is the HTTP phrase ("OK" on a
 * 200), not the reason of the failure, so it is never shown as one.
 */
function legacyMessage(body: Record<string, unknown>): string {
  const code = String(body.processCode);
  const text = processValueText(body.processValue);
  return oneLine(text ? `processCode ${code}: ${text}` : `processCode ${code} (the answer gives no reason)`);
}

/** The message and per-product errors of a refusal (400/413/422 body, or a legacy FAIL body). */
export function readRejection(status: number, text: string): ServerVerdict {
  const body = parseJson(text);
  if (isObject(body) && typeof body.processCode === 'string') {
    const value = body.processValue;
    return { message: legacyMessage(body), errors: rowErrors(isObject(value) ? value.errors : undefined) };
  }
  return {
    message: answerMessage(status, text),
    errors: isObject(body) ? rowErrors(body.errors) : [],
  };
}

/** A legacy 200 can still be a refusal: `processCode: "FAIL"`. */
export function isLegacyFail(text: string): boolean {
  const body = parseJson(text);
  return isObject(body) && typeof body.processCode === 'string' && body.processCode.toUpperCase() === 'FAIL';
}
