/**
 * A JSON Pointer's reference tokens (RFC 6901): `~` is written `~0` and `/` is written `~1`,
 * and read back in the other order.
 */
export function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The key a pointer token (or a pointer's text after its first `/`) stands for. */
export function tokenText(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}
