import { serveTasks } from '../shared/worker-pool.js';
import type { IngestRequest } from './ingest-pool.js';
import { type BodyOutcome, processBody } from './product-body.js';

/** The sandbox's ingest worker: bodies in, verdicts out (src/sandbox/ingest-pool.ts). */
serveTasks<IngestRequest, BodyOutcome>((m) => ({ result: processBody(m.endpoint, m.body, m.appliesAt) }));
