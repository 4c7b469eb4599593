/**
 * A JSON object read from its UTF-8 bytes (a payload kept in the state, say), through a view of
 * them: `Buffer.from` of a Uint8Array would copy them first.
 */
export function parseJsonBytes(bytes: Uint8Array): Record<string, unknown> {
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
}
