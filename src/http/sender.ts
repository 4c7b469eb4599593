import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { checkHttpUrl } from '../shared/http-url.js';
import { readBounded } from './answer-bound.js';
import { dispatcherFor, type NetworkSettings } from './network.js';

/**
 * The I/O part of sending (products and events): one keep-alive dispatcher per run, straight or
 * through the proxy (src/http/network.ts). Everything else decides what to send (src/upload,
 * src/events) and what an answer means (./exchange.ts).
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
  /** Proxy and CAs (`--proxy`, the proxy variables, `--ca-file`). */
  /** Proxy and CAs (`--proxy`, the proxy variables, `--ca-file`); absent: straight to the host with Node's CAs. */
  network?: NetworkSettings;
}

const gzipAsync = promisify(gzip);

export class UndiciSender implements Poster {
  private readonly dispatcher: Dispatcher;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly fixedHeaders: Record<string, string>;
  /** Bytes of request bodies as they went on the wire (after compression). */
  bytesOnWire = 0;

  constructor(private readonly settings: SenderSettings) {
    // A guard: the settings check the URL first, but an ftp:// here must be a usage error too.
    const url = new URL(checkHttpUrl(settings.apiUrl, settings.urlFrom ?? 'the service URL'));
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.dispatcher = dispatcherFor(url, settings.network ?? { env: {} }, {
      connections: settings.connections,
      timeoutMs: settings.timeoutMs,
    }).dispatcher;
    this.fixedHeaders = {
      'content-type': 'application/json',
      'user-agent': settings.userAgent,
      [settings.keyHeader]: settings.key,
      ...(settings.network?.compress === 'gzip' ? { 'content-encoding': 'gzip' } : {}),
    };
  }

  url(path: string): string {
    return `${this.origin}${this.basePath}${path}`;
  }

  async post(
    path: string,
    body: Buffer | string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<HttpAnswer> {
    // The whole exchange, not only each wait, is bounded by --timeout.
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    const wire = this.settings.network?.compress === 'gzip' ? await gzipAsync(body, { level: 1 }) : body;
    this.bytesOnWire += Buffer.byteLength(wire);
    const res = await this.dispatcher.request({
      origin: this.origin,
      method: 'POST',
      path: this.basePath + path,
      headers: { ...this.fixedHeaders, ...headers },
      body: wire,
      signal: AbortSignal.any([signal, timeout]),
    });
    const text = await readBounded(res, this.url(path));
    return { status: res.statusCode, headers: res.headers, body: text };
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
