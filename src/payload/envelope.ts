import type { Framing } from './framing.js';

/** The request body: framing around the given products' JSON bytes, in one buffer. */
export function buildBody(framing: Framing, parts: readonly Uint8Array[]): Buffer {
  const head = Buffer.from(framing.head);
  const tail = Buffer.from(framing.tail);
  let size = head.length + tail.length + Math.max(0, parts.length - 1);
  for (const part of parts) size += part.length;
  const body = Buffer.allocUnsafe(size);
  let at = head.copy(body, 0);
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) body[at++] = 0x2c; // ','
    body.set(parts[i], at);
    at += parts[i].length;
  }
  tail.copy(body, at);
  return body;
}
