import type { ItemError } from './problems.js';
import { problem } from './problems.js';

/**
 * What a handler answers, before it is written. Handlers stay free of `res` so the same reply
 * can be stored for idempotent replay and written later.
 */
export interface Reply {
  status: number;
  contentType?: string;
  body?: string;
  headers?: Record<string, string>;
  /** Items in the request (products or 1 for an event), for the request log. */
  items?: number;
  /** Close the connection after answering (413: the rest of the body is not wanted). */
  close?: boolean;
  /** Drop the connection without an answer (fault `--reset-rate`). */
  reset?: boolean;
}

/** Which answer style an endpoint uses: problem+json, or the legacy result structure. */
export type AnswerStyle = 'problem' | 'legacy';

const REASONS: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Error';
}

export function json(status: number, value: unknown, items?: number): Reply {
  return { status, contentType: 'application/json', body: JSON.stringify(value), items };
}

/** An error answer in the endpoint's style. */
export function errorReply(
  style: AnswerStyle,
  status: number,
  slug: string,
  detail: string,
  errors?: ItemError[],
): Reply {
  if (style === 'legacy') {
    const processValue: Record<string, unknown> = { message: detail };
    if (errors) processValue.errors = errors;
    return json(status, {
      httpStatus: { code: String(status), reasonPhrase: reasonPhrase(status) },
      processCode: 'FAIL',
      processValue,
    });
  }
  return {
    status,
    contentType: 'application/problem+json',
    body: JSON.stringify(problem(status, slug, reasonPhrase(status), detail, errors)),
  };
}

export function legacyOk(processValue: Record<string, unknown>, items: number): Reply {
  return json(
    200,
    { httpStatus: { code: '200', reasonPhrase: 'OK' }, processCode: 'OK', processValue },
    items,
  );
}
