import { formatSearchAnswer, searchBackend } from '../search/search-backend.js';
import { UsageError } from '../shared/errors.js';
import type { CommandContext } from './context.js';

/** `genser search "query"`: what a search backend answers (docs/client.md). */
export interface SearchSettings {
  searchUrl?: string;
  instanceKey?: string;
  limit: number;
  /** Seconds. */
  timeout: number;
  json?: boolean;
}

export async function runSearch(query: string, s: SearchSettings, ctx: CommandContext): Promise<number> {
  if (!s.searchUrl)
    throw new UsageError(
      'no search backend: set --url or GENSER_SEARCH_URL',
      'the sandbox prints its URL at start: genser search "query" --url http://127.0.0.1:8080',
    );
  const answer = await searchBackend({
    url: s.searchUrl,
    instanceKey: s.instanceKey ?? '',
    query,
    timeoutMs: s.timeout * 1000,
    limit: s.limit,
    network: ctx.network,
  });
  ctx.stdout.write(s.json ? `${JSON.stringify(answer, null, 2)}\n` : `${formatSearchAnswer(answer)}\n`);
  return 0;
}
