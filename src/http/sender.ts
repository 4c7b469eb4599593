import { Pool } from 'undici';
import { checkHttpUrl } from '../shared/http-url.js';

/**
 * The I/O part of sending (products and events): one undici Pool with keep-alive per run.
 * Everything else decides what to send (src/upload, src/events) and what an answer means
 * (./exchange.ts).
 */

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** What the senders need from an HTTP client; tests may pass another implementation. */
export interface Poster {
  /** The full URL of `path`, for messages (never carries the key: it is a header). */
  url(path: string): string;
  post(
    path: string,
    body: Buffer | string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<HttpAnswer>;
  close(): Promise<void>;
}

export interface SenderSettings {
  /** e.g. https://api.example.com or https://api.example.com/v1 (a base path is kept). */
  apiUrl: string;
  connections: number;
  timeoutMs: number;
  userAgent: string;
  /** `apiKey` (standard) or `x-api-key` (legacy). */
  keyHeader: string;
  key: string;
  /** Where apiUrl came from, for the usage error when it is not an http(s) URL (`GENSER_BASE_URL`). */
  urlFrom?: string;
}

export class UndiciSender implements Poster {
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly fixedHeaders: Record<string, string>;

  constructor(private readonly settings: SenderSettings) {
    // A guard: the settings check the URL first, but an ftp:// here must be a usage error too.
    const url = new URL(checkHttpUrl(settings.apiUrl, settings.urlFrom ?? 'the service URL'));
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections: settings.connections,
      keepAliveTimeout: 30_000,
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
    });
    this.fixedHeaders = {
      'content-type': 'application/json',
      'user-agent': settings.userAgent,
      [settings.keyHeader]: settings.key,
    };
  }

  url(path: string): string {
    return `${new URL(this.settings.apiUrl).origin}${this.basePath}${path}`;
  }

  async post(
    path: string,
    body: Buffer | string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<HttpAnswer> {
    // The whole exchange, not only each wait, is bounded by --timeout.
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    const res = await this.pool.request({
      method: 'POST',
      path: this.basePath + path,
      headers: { ...this.fixedHeaders, ...headers },
      body,
      signal: AbortSignal.any([signal, timeout]),
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, body: text };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
