import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Small scripted HTTP servers on 127.0.0.1:0 for the upload tests: every request is recorded
 * (body and headers), in-flight requests are counted, and a script decides each answer.
 */
export interface Recorded {
  n: number;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Script = (req: Recorded, res: ServerResponse) => void | Promise<void>;

export interface ScriptedServer {
  url: string;
  requests: Recorded[];
  maxInFlight: number;
  close(): Promise<void>;
}

export async function scriptedServer(script: Script): Promise<ScriptedServer> {
  const requests: Recorded[] = [];
  let inFlight = 0;
  const state = { maxInFlight: 0 };
  const server = createServer((req, res) => {
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        inFlight--;
      }
    };
    res.on('close', finish);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Recorded = {
        n: requests.length + 1,
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(rec);
      Promise.resolve(script(rec, res)).catch((err: unknown) => {
        res.statusCode = 599;
        res.end(String(err));
      });
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get maxInFlight() {
      return state.maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

export function problem(res: ServerResponse, status: number, detail: string, errors: unknown[] = []) {
  res.writeHead(status, { 'content-type': 'application/problem+json' });
  res.end(JSON.stringify({ type: 'about:blank', title: 'Bad Request', status, detail, errors }));
}

/** The products of a standard envelope or legacy array body. */
export function productsOf(body: string): Record<string, unknown>[] {
  const parsed = JSON.parse(body) as unknown;
  if (Array.isArray(parsed)) return parsed as Record<string, unknown>[];
  return (parsed as { '@graph': Record<string, unknown>[] })['@graph'];
}

export function envelopeId(body: string): string {
  return (JSON.parse(body) as { id: string }).id;
}

export const sleepMs = (ms: number) => new Promise((r) => setTimeout(r, ms));
