import { UsageError } from '../shared/errors.js';
import { samplePathHint } from '../upload/path-hint.js';
import { defaultPath } from '../upload/settings.js';
import type { CommandContext } from './context.js';
import { type FeedSettings, feedOptionsFrom } from './feed-settings.js';

/**
 * The contract's sample request line sends standard products to the legacy `/searches/products`
 * (src/upload/path-hint.ts): an upload aimed there stops before anything is read or sent.
 * The format is the one the run will use (a mapping file's own `format` included).
 */
export function checkSamplePath(
  s: FeedSettings & { path?: string; apiUrl?: string; sandbox?: boolean },
  ctx: Pick<CommandContext, 'explicit'>,
): void {
  const feed = feedOptionsFrom(s, ctx);
  const path = s.path ?? defaultPath(feed);
  // --sandbox sends to its own host: only the path counts then.
  const hint = samplePathHint(feed.format, path, s.sandbox ? undefined : s.apiUrl);
  if (hint) throw new UsageError(hint.replace(/; did you mean .*$/, ''), hint.replace(/^.*?; /, ''));
}
