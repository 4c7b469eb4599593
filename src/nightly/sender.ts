import type { NetworkSettings } from '../http/network.js';
import { UndiciSender } from '../http/sender.js';
import { packageVersion } from '../shared/paths.js';
import type { PayloadFormat } from '../shared/types.js';

/** The product API's sender: the key in the format's own header (contract 5: apiKey, legacy x-api-key). */
export function productSender(
  to: { apiUrl: string; key: string; format: PayloadFormat; network?: NetworkSettings },
  connections: number,
  timeoutMs: number,
): UndiciSender {
  return new UndiciSender({
    apiUrl: to.apiUrl,
    connections,
    timeoutMs,
    userAgent: `genser/${packageVersion()}`,
    keyHeader: to.format === 'legacy' ? 'x-api-key' : 'apiKey',
    key: to.key,
    network: to.network,
  });
}
