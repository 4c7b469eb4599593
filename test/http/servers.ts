import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/**
 * A product API stand-in on 127.0.0.1:0 for the network tests, over https (with a given
 * certificate) or plain http: answers 200 `{}` and records each request's body (decompressed
 * when gzip) and headers.
 */
export interface TestService {
  url: string;
  port: number;
  requests: { headers: IncomingMessage['headers']; body: string; wireBytes: number }[];
  close(): Promise<void>;
}

export async function testService(tls?: { key: string; cert: string }): Promise<TestService> {
  const requests: TestService['requests'] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      requests.push({ headers: req.headers, body: body.toString('utf8'), wireBytes: raw.length });
      res.writeHead(200, { 'content-type': 'application/json', date: new Date().toUTCString() });
      res.end('{}');
    });
  };
  const server = tls
    ? createHttpsServer({ key: tls.key, cert: tls.cert }, handler)
    : createHttpServer(handler);
  server.keepAliveTimeout = 500;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://localhost:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
