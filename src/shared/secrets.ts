/**
 * Secrets (API and service keys, passwords in URLs) must never reach output, logs, reports or error messages.
 * Every key genser loads is registered here; the logger and the report writers pass all text
 * through `redact`, so a key that slips into a message (an echoed header, a server's error
 * text) is masked at the last moment.
 *
 * A key is masked in every form it can take on the way: as it is, JSON-escaped (a server
 * echoing it inside JSON, and genser's own `--json` and `--report` escaping that text once
 * more), and URL-encoded (in a query or form body), each of those JSON-escaped too.
 */
const secrets = new Set<string>();
/** All forms of all secrets, longest first, so a form that contains another is masked whole. */
let forms: string[] = [];

/** The inside of a JSON string literal, as JSON.stringify writes it. */
const jsonEscaped = (s: string) => JSON.stringify(s).slice(1, -1);

/** As a server might escape it otherwise: every non-ASCII character and `/` escaped. */
const jsonEscapedAscii = (s: string) =>
  jsonEscaped(s)
    .replace(/\//g, '\\/')
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase());

/** Every escaped form of one secret (see above). Exported for tests. */
export function secretForms(secret: string): string[] {
  const url = encodeURIComponent(secret);
  const form = url.replace(/%20/g, '+');
  const base = [secret, url, lowerHex(url), form, lowerHex(form), encodeURI(secret)];
  const out = new Set<string>();
  for (const b of base) {
    out.add(b);
    for (const once of [jsonEscaped(b), jsonEscapedAscii(b)]) {
      out.add(once);
      out.add(jsonEscaped(once));
      out.add(jsonEscapedAscii(once));
    }
  }
  return [...out];
}

export function registerSecret(value: string): void {
  // Very short values would mask ordinary words; real keys are longer than this.
  if (value.length < 4 || secrets.has(value)) return;
  secrets.add(value);
  const all = new Set(forms);
  for (const f of secretForms(value)) if (f.length >= 4) all.add(f);
  forms = [...all].sort((a, b) => b.length - a.length);
}

export function redact(text: string): string {
  if (forms.length === 0) return text;
  let out = text;
  for (const form of forms) {
    if (out.includes(form)) out = out.split(form).join('***');
  }
  return out;
}

/**
 * A URL's password (`http://user:pass@host`) is a secret as keys are: its `user:password` pair
 * (however short the password, the pair is masked whole), and the password itself as written in
 * the URL and decoded.
 */
export function registerUrlSecrets(url: URL): void {
  if (url.password === '') return;
  registerSecret(`${url.username}:${url.password}`);
  registerSecret(url.password);
  try {
    registerSecret(decodeURIComponent(url.password));
  } catch {
    // Not valid percent-encoding: the form as written is registered above.
  }
}

/** For tests only. */
export function clearSecrets(): void {
  secrets.clear();
  forms = [];
}

/** `unknown option '--apiKey=SECRET'`: commander echoes the whole word; keep the name, not the value. */
export function redactOptionValues(message: string): string {
  return message.replace(/('--?[A-Za-z0-9][\w-]*=)[^']*'/g, "$1***'");
}
