import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Proxies on 127.0.0.1 for the network tests: Debian's `tinyproxy` (a real forward proxy,
 * installed by .ci/run; `hasTinyproxy` is false where it is absent), and small Node servers for
 * the faults: a 407, a refused CONNECT, a proxy that drops the connection.
 */
export const hasTinyproxy = spawnSync('tinyproxy', ['-v']).status === 0;

async function freePort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface Tinyproxy {
  url: string;
  /** The CONNECT requests it logged ("host:port"). */
  connects(): string[];
  stop(): Promise<void>;
}

/** tinyproxy on a free port, CONNECT allowed to every port, optionally with Basic auth. */
export async function startTinyproxy(auth?: { user: string; password: string }): Promise<Tinyproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'genser-tinyproxy-'));
  const port = await freePort();
  const log = join(dir, 'tinyproxy.log');
  writeFileSync(
    join(dir, 'tinyproxy.conf'),
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 30',
      `LogFile "${log}"`,
      'LogLevel Connect',
      'MaxClients 100',
      'Allow 127.0.0.1',
      ...(auth ? [`BasicAuth ${auth.user} ${auth.password}`] : []),
    ].join('\n'),
  );
  writeFileSync(log, '');
  const child: ChildProcess = spawn('tinyproxy', ['-d', '-c', join(dir, 'tinyproxy.conf')], {
    stdio: 'ignore',
  });
  // Ready when it accepts connections.
  for (let i = 0; ; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) break;
    if (i > 100) throw new Error('tinyproxy did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    connects: () =>
      [...readFileSync(log, 'utf8').matchAll(/Request \(file descriptor \d+\): CONNECT (\S+)/g)].map(
        (m) => m[1],
      ),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface FaultProxy {
  url: string;
  /** CONNECT requests seen, with their Proxy-Authorization header. */
  seen: { target: string; auth?: string }[];
  close(): Promise<void>;
}

/** A proxy that answers every CONNECT with `status` (407 asks for credentials), or drops it. */
export async function faultProxy(answer: number | 'drop'): Promise<FaultProxy> {
  const seen: FaultProxy['seen'] = [];
  const server: Server = createServer((_req, res) => {
    res.writeHead(400);
    res.end();
  });
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    seen.push({ target: req.url ?? '', auth: req.headers['proxy-authorization'] });
    if (answer === 'drop') return socket.destroy();
    const extra = answer === 407 ? 'Proxy-Authenticate: Basic realm="test"\r\n' : '';
    socket.end(`HTTP/1.1 ${answer} No\r\n${extra}Content-Length: 0\r\n\r\n`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  return freePort();
}
