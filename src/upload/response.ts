import { isObject } from '../shared/is-object.js';
import type { ServerRowError } from './bisect.js';

/**
 * Reading the server's answers (pure). Error bodies are `application/problem+json` with
 * `errors: [{index, sku, pointer, message}]` (docs/architecture.md section 3); legacy answers carry
 * `{httpStatus, processCode, processValue}`, and a 200 whose processCode is FAIL is a failure.
 */

export interface ServerVerdict {
  message: string;
  errors: ServerRowError[];
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** One line, at most `max` characters, for messages built from what a server sent. */
export function oneLine(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
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

/** The message and per-product errors of a rejection (400/413 body, or a legacy FAIL body). */
export function readRejection(status: number, text: string): ServerVerdict {
  const body = parseJson(text);
  if (!isObject(body)) {
    return { message: text.trim() ? oneLine(text) : `HTTP ${status}`, errors: [] };
  }
  // Legacy FAIL: details, when any, sit in processValue.
  if (typeof body.processCode === 'string') {
    const value = body.processValue;
    const fromValue = isObject(value)
      ? (value.message ?? value.detail ?? value.reason)
      : typeof value === 'string'
        ? value
        : undefined;
    const reason = isObject(body.httpStatus) ? body.httpStatus.reasonPhrase : undefined;
    const message = typeof fromValue === 'string' ? fromValue : typeof reason === 'string' ? reason : 'FAIL';
    return {
      message: oneLine(`processCode ${body.processCode}: ${message}`),
      errors: rowErrors(isObject(value) ? value.errors : undefined),
    };
  }
  const parts = [body.title, body.detail].filter((p): p is string => typeof p === 'string' && p !== '');
  const message = parts.length > 0 ? parts.join(': ') : typeof body.message === 'string' ? body.message : '';
  return { message: oneLine(message || `HTTP ${status}`), errors: rowErrors(body.errors) };
}

/** A legacy 200 can still be a failure: `processCode: "FAIL"`. */
export function isLegacyFail(text: string): boolean {
  const body = parseJson(text);
  return isObject(body) && typeof body.processCode === 'string' && body.processCode.toUpperCase() === 'FAIL';
}
