import { isObject } from '../shared/is-object.js';
import type { HttpAnswer } from './sender.js';

/**
 * Reading the service's answers (pure). Error bodies are `application/problem+json`
 * (`title`, `detail`, `errors[]`; docs/upload.md), some servers send `{message}` or plain text.
 */

/** One line, at most `max` characters, for messages built from what a server sent. */
export function oneLine(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The JSON value of a body, or undefined when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The message of an error answer: problem+json's title and detail, a `message`, or the text. */
export function answerMessage(status: number, text: string): string {
  const body = parseJson(text);
  if (!isObject(body)) return text.trim() ? oneLine(text) : `HTTP ${status}`;
  const parts = [body.title, body.detail].filter((p): p is string => typeof p === 'string' && p !== '');
  const message = parts.length > 0 ? parts.join(': ') : typeof body.message === 'string' ? body.message : '';
  return oneLine(message || `HTTP ${status}`);
}

function header(answer: HttpAnswer, name: string): string {
  const value = answer.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/**
 * Why a 2xx is not the service's kind of answer, or undefined when it is. The service answers
 * JSON or nothing (contract sections 4.1, 7); an HTML page or other text means the URL points
 * at something else (a website, a proxy's login page), and counting that as accepted would
 * report data as delivered that went nowhere.
 */
export function notServiceAnswer(answer: HttpAnswer): string | undefined {
  const type = header(answer, 'content-type').toLowerCase();
  const text = answer.body.trim();
  if (type.includes('html') || /^<(!doctype|html|head|body)\b/i.test(text)) return 'an HTML page';
  if (text !== '' && parseJson(text) === undefined)
    return `text that is not JSON (${type ? `${type.split(';')[0]}, ` : ''}"${oneLine(text, 40)}")`;
  return undefined;
}
