import type { NetworkSettings } from '../http/network.js';
import { ExitCode, ExitError, UsageError } from '../shared/errors.js';
import { printable } from '../shared/printable.js';
import { registerUrlSecrets } from '../shared/secrets.js';

/**
 * Feeds from an http(s) URL, the light part (docs/reading.md, "Feeds from a URL"): how a URL is
 * named and checked, its settings, and what an unchanged feed throws. The download itself is
 * ./remote.ts, loaded only when a URL is read, so a feed from a file (and every feed worker)
 * never loads the HTTP client.
 */

export interface Validators {
  etag?: string;
  lastModified?: string;
  /** The run that saw them (for the message when the feed is unchanged). */
  runId?: string;
}

export interface RemoteSettings {
  net: NetworkSettings;
  /** `GENSER_FEED_AUTH` as a header (a registered secret: never shown). */
  auth?: { name: string; value: string };
  /** Wait for the answer's headers, and between two pieces of its body. */
  timeoutMs: number;
  /** The validators the last complete run saw, per URL (sent as If-None-Match / If-Modified-Since). */
  since?: (source: string) => Validators | undefined;
  /** Told the validators of each URL that answered 200 (kept when the run completes). */
  seen?: (source: string, validators: Validators) => void;
  /** The body of each URL goes through this as it is read (`--rejects` keeps a copy: src/report/rejects.ts). */
  copy?: (source: string, body: AsyncIterable<Buffer>) => AsyncIterable<Buffer>;
}

/**
 * The server answered 304 to the validators of the last run that ended well: nothing is read or
 * sent, and the run ends with exit 0 (a success, not a problem).
 */
export class FeedUnchanged extends ExitError {
  constructor(
    readonly source: string,
    since: Validators,
  ) {
    super(
      ExitCode.ok,
      `feed unchanged since run ${since.runId ?? '(unknown)'}: ${urlName(source)} answered 304 Not Modified; nothing was downloaded or sent`,
    );
    this.name = 'FeedUnchanged';
  }
}

export const isUrl = (source: string): boolean => /^https?:\/\//i.test(source);

/** The URL as messages and reports name it: no credentials, and a query (often a token) hidden. */
export function urlName(source: string): string {
  try {
    const url = new URL(source);
    return printable(`${url.origin}${url.pathname}${url.search ? '?…' : ''}`);
  } catch {
    return printable(source);
  }
}

/** Refuses what cannot be fetched, before anything is read: a bad URL, a password in it. */
export function checkFeedUrl(source: string): URL {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    throw new UsageError(`${printable(source)}: not a URL`, 'Give an absolute http(s) URL or a file path.');
  }
  registerUrlSecrets(url);
  if (url.username || url.password)
    throw new UsageError(
      `${urlName(source)}: credentials in a feed URL are refused (they would show in ps and shell history)`,
      'Put them in GENSER_FEED_AUTH instead, e.g. GENSER_FEED_AUTH="Basic $(printf user:password | base64)".',
    );
  return url;
}

/** `GENSER_FEED_AUTH`: `Name: value` sends that header, anything else is the Authorization header. */
export function feedAuthHeader(value: string): { name: string; value: string } {
  const named = /^([A-Za-z0-9-]+):\s*(.+)$/.exec(value.trim());
  if (named && !/^(basic|bearer|token|digest)$/i.test(named[1]))
    return { name: named[1].toLowerCase(), value: named[2] };
  return { name: 'authorization', value: value.trim() };
}
