import type { IncomingMessage } from 'node:http';
import { gunzip } from 'node:zlib';

/**
 * Reads a request body with a byte cap. Past the cap it stops at once (the rest is never
 * buffered) and reports `too-large`; the caller answers 413 and closes the connection.
 * A `Content-Encoding: gzip` body is decompressed, under the same cap (a small body that
 * inflates past it is too large too); another encoding is `unsupported-encoding` (415), and
 * gzip that does not decompress is `bad-encoding` (400). docs/sandbox.md, docs/networks.md.
 */
export type BodyResult =
  | { kind: 'ok'; body: Buffer }
  | { kind: 'too-large' }
  | { kind: 'aborted' }
  | { kind: 'unsupported-encoding'; encoding: string }
  | { kind: 'bad-encoding' };

export function declaredTooLarge(req: IncomingMessage, maxBytes: number): boolean {
  const declared = req.headers['content-length'];
  return declared !== undefined && Number(declared) > maxBytes;
}

/** The body's encoding, lower-cased: `identity` when none is given. */
function encodingOf(req: IncomingMessage): string {
  return (req.headers['content-encoding'] ?? '').trim().toLowerCase() || 'identity';
}

export async function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const encoding = encodingOf(req);
  if (encoding !== 'identity' && encoding !== 'gzip') {
    req.resume();
    return { kind: 'unsupported-encoding', encoding };
  }
  const raw = await readRaw(req, maxBytes);
  if (raw.kind !== 'ok' || encoding === 'identity') return raw;
  return new Promise((resolve) =>
    gunzip(raw.body, { maxOutputLength: maxBytes }, (err, body) => {
      if (!err) resolve({ kind: 'ok', body });
      else
        resolve(
          (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
            ? { kind: 'too-large' }
            : { kind: 'bad-encoding' },
        );
    }),
  );
}

function readRaw(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        req.pause();
        finish({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () =>
      finish({ kind: 'ok', body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size) });
    const onError = () => finish({ kind: 'aborted' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onError);
    req.on('close', () => {
      if (!req.complete) finish({ kind: 'aborted' });
    });
  });
}

/** The answer to a body whose encoding cannot be read: 415 for an unknown one, 400 for broken gzip. */
export function encodingProblem(
  read: BodyResult,
): { status: 400 | 415; code: string; detail: string } | undefined {
  if (read.kind === 'unsupported-encoding')
    return {
      status: 415,
      code: 'unsupported-encoding',
      detail: `Content-Encoding ${read.encoding} is not supported here: send gzip, or no Content-Encoding`,
    };
  if (read.kind === 'bad-encoding')
    return {
      status: 400,
      code: 'bad-encoding',
      detail: 'the body is not valid gzip (Content-Encoding: gzip)',
    };
  return undefined;
}
