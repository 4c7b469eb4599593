import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../shared/errors.js';
import type { IngestRequest, IngestResponse } from './ingest-pool.js';
import { processBody } from './product-body.js';

/** The sandbox's ingest worker: bodies in, verdicts out (src/sandbox/ingest-pool.ts). */
const port = parentPort!;
port.on('message', (m: IngestRequest) => {
  let answer: IngestResponse;
  try {
    answer = { id: m.id, outcome: processBody(m.endpoint, m.body, m.appliesAt) };
  } catch (err) {
    answer = { id: m.id, error: errorMessage(err) };
  }
  port.postMessage(answer);
});
