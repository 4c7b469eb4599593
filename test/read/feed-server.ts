import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * A feed server on 127.0.0.1:0 for the URL-feed tests: it serves named bodies, answers
 * If-None-Match / If-Modified-Since with 304 when the ETag / Last-Modified still match, can gzip
 * by Content-Encoding, require a header, or cut the body half-way (Content-Length announced,
 * the connection destroyed after half the bytes).
 */
export interface Served {
  body: Buffer;
  etag?: string;
  lastModified?: string;
  /** Sent with Content-Encoding: gzip. */
  gzip?: boolean;
  /** Half the bytes, then the connection is destroyed. */
  cut?: boolean;
  /** This header name and value are required (else 401). */
  requires?: [string, string];
}

export interface FeedServer {
  url: string;
  /** Request headers, in order. */
  requests: { path: string; headers: IncomingMessage['headers'] }[];
  serve(path: string, served: Served): void;
  close(): Promise<void>;
}

function answer(req: IncomingMessage, res: ServerResponse, s: Served): void {
  if (s.requires && req.headers[s.requires[0]] !== s.requires[1]) {
    res.writeHead(401, { 'content-type': 'text/plain' });
    res.end('who are you?');
    return;
  }
  const validators: Record<string, string> = {};
  if (s.etag) validators.etag = s.etag;
  if (s.lastModified) validators['last-modified'] = s.lastModified;
  const etagMatch = s.etag !== undefined && req.headers['if-none-match'] === s.etag;
  const dateMatch = s.lastModified !== undefined && req.headers['if-modified-since'] === s.lastModified;
  if (etagMatch || (dateMatch && req.headers['if-none-match'] === undefined)) {
    res.writeHead(304, validators);
    res.end();
    return;
  }
  const body = s.gzip ? gzipSync(s.body) : s.body;
  res.writeHead(200, {
    ...validators,
    'content-length': String(body.length),
    ...(s.gzip ? { 'content-encoding': 'gzip' } : {}),
  });
  if (!s.cut) {
    res.end(body);
    return;
  }
  res.write(body.subarray(0, Math.floor(body.length / 2)), () => setTimeout(() => res.socket?.destroy(), 20));
}

export async function feedServer(): Promise<FeedServer> {
  const served = new Map<string, Served>();
  const requests: FeedServer['requests'] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push({ path, headers: req.headers });
    const s = served.get(path.split('?')[0]);
    if (!s) {
      res.writeHead(404);
      res.end();
      return;
    }
    answer(req, res, s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    serve: (path, s) => served.set(path, s),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
