import { UsageError } from './errors.js';
import { printable } from './printable.js';
import { registerUrlSecrets } from './secrets.js';

/**
 * The one check of a service URL (product API, collection host), wherever it came from: an
 * absolute http or https URL with a host. Anything else is a usage error (exit 2) naming where
 * the value came from (`GENSER_BASE_URL`, `--api-url`, the config key), not a crash deep in the
 * HTTP client ("Invalid URL protocol", exit 70). A query or fragment would be dropped when paths
 * are added to the URL, so they are refused rather than ignored.
 */
export function checkHttpUrl(raw: unknown, from: string): string {
  const text = String(raw).trim();
  const shown = printable(text.length > 200 ? `${text.slice(0, 199)}…` : text);
  const example = 'e.g. https://api.example.com or http://127.0.0.1:8080';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${from} is not a URL: "${shown}"`, `give an absolute http(s) URL, ${example}`);
  }
  // Before any message names the URL: its password is masked everywhere from now on.
  registerUrlSecrets(url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(
      `${from} must be an http or https URL; got "${shown}" (${url.protocol.slice(0, -1)})`,
      `give an absolute http(s) URL, ${example}`,
    );
  if (url.hostname === '') throw new UsageError(`${from} has no host: "${shown}"`, example);
  if (url.search !== '' || url.hash !== '')
    throw new UsageError(
      `${from} must not have a query or fragment: "${shown}"`,
      'give the host and an optional base path; genser adds the endpoint paths',
    );
  return text;
}
