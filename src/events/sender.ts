import type { NetworkSettings } from '../http/network.js';
import { UndiciSender } from '../http/sender.js';
import { packageVersion } from '../shared/paths.js';

/** The event collector's sender: the service key in its own header (contract 4). */
export function eventsSender(
  to: { url: string; key: string; network?: NetworkSettings },
  connections: number,
  timeoutMs: number,
): UndiciSender {
  return new UndiciSender({
    apiUrl: to.url,
    connections,
    timeoutMs,
    userAgent: `genser/${packageVersion()}`,
    keyHeader: 'serviceKey',
    key: to.key,
    network: to.network,
  });
}
