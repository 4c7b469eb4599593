import { createClient } from './client.js';

/**
 * The classic-script entry (`<script src=".../genser.js" data-endpoint="...">`): defines
 * `window.genser`, then runs what the page queued in `window.genser.q` before the script arrived
 * (docs/client.md shows the snippet). Queue entries: `['configure', options]` and
 * `['call', name, params, stub?]`; a stub handle's callbacks move to the real call.
 */
type Callback = (value: unknown) => void;
interface Stub {
  s?: Callback[];
  e?: Callback[];
  success?: (cb: Callback) => Stub;
  error?: (cb: Callback) => Stub;
}
interface Queued {
  q?: unknown[];
  loaded?: boolean;
}

declare const VERSION: string;

const w = window as unknown as { genser?: Queued & Record<string, unknown> };
const before = w.genser;

if (!before?.loaded) {
  const script = document.currentScript;
  const attr = (name: string) => script?.getAttribute(name) || undefined;
  const client = createClient({
    endpoint: attr('data-endpoint'),
    timeoutMs: Number(attr('data-timeout')) || undefined,
  });

  const run = (entry: unknown) => {
    const [what, a, b, stub] = (Array.isArray(entry) ? entry : []) as [unknown, unknown, unknown, Stub?];
    if (what === 'configure') client.configure(a as object);
    else if (what === 'call') {
      const call = client.call(String(a), b);
      if (!stub || typeof stub !== 'object') return;
      for (const cb of stub.s || []) call.success(cb);
      for (const cb of stub.e || []) call.error(cb);
      // Callbacks the page attaches to the stub from now on go straight to the call.
      stub.success = (cb) => {
        call.success(cb);
        return stub;
      };
      stub.error = (cb) => {
        call.error(cb);
        return stub;
      };
    } else console.error('genser: unknown queued command', entry);
  };

  const api = {
    loaded: true,
    version: VERSION,
    configure(options: object) {
      client.configure(options);
      return api;
    },
    call: client.call,
    // After load, pushing to the queue runs the entry at once.
    q: {
      push(...entries: unknown[]) {
        for (const e of entries) run(e);
        return 0;
      },
    },
  };
  w.genser = api as unknown as Queued & Record<string, unknown>;
  const queued = before && Array.isArray(before.q) ? before.q : [];
  for (const e of queued) run(e);
}
