/**
 * Secrets (API and service keys) must never reach output, logs, reports or error messages.
 * Every key genser loads is registered here; the logger and the report writers pass all text
 * through `redact`, so a key that slips into a message (an echoed header, a server's error
 * text) is masked at the last moment.
 */
const secrets = new Set<string>();

export function registerSecret(value: string): void {
  // Very short values would mask ordinary words; real keys are longer than this.
  if (value.length >= 4) secrets.add(value);
}

export function redact(text: string): string {
  if (secrets.size === 0) return text;
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join('***');
  }
  return out;
}

/** For tests only. */
export function clearSecrets(): void {
  secrets.clear();
}
