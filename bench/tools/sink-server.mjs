#!/usr/bin/env node
// A sink standing in for the product API: reads and discards every request body, answers 200
// `{}`. Prints `{"port": P}` on stdout once listening. `GET /_stats` returns what it received.
// With `--record FILE` it also writes each body as one line of FILE (for the bare-post loop,
// which then replays exactly the batches genser sent).
//
//   node bench/tools/sink-server.mjs [--record FILE]

import { createWriteStream } from 'node:fs';
import { createServer } from 'node:http';

const recordAt = process.argv.indexOf('--record');
const record = recordAt > 0 ? createWriteStream(process.argv[recordAt + 1]) : null;
const stats = { requests: 0, bytes: 0, firstAt: 0, lastAt: 0 };

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/_stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(stats));
    return;
  }
  if (req.method === 'POST' && req.url === '/_reset') {
    Object.assign(stats, { requests: 0, bytes: 0, firstAt: 0, lastAt: 0 });
    res.writeHead(204).end();
    return;
  }
  const chunks = record ? [] : null;
  let bytes = 0;
  req.on('data', (c) => {
    bytes += c.length;
    chunks?.push(c);
  });
  req.on('end', () => {
    const now = Date.now();
    stats.requests++;
    stats.bytes += bytes;
    stats.firstAt ||= now;
    stats.lastAt = now;
    if (record) {
      // Bodies are JSON: one per line once inner newlines are gone (JSON escapes them anyway).
      record.write(Buffer.concat(chunks).toString('utf8').replace(/\n/g, ' '));
      record.write('\n');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
const stop = () => {
  server.close();
  server.closeAllConnections();
  if (record) record.end(() => process.exit(0));
  else process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
