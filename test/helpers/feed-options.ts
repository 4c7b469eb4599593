import { resolveSettings } from '../../src/cli/settings.js';
import { feedOptionsFrom } from '../../src/commands/feed-settings.js';
import type { FeedOptions } from '../../src/shared/types.js';

/** The pipeline's options as `genser validate` resolves them from these flags (no env, no config file). */
export function feedOptions(flags: Record<string, unknown> = {}): FeedOptions {
  const r = resolveSettings('validate', flags, {}, '/');
  const explicit = new Set(
    Object.entries(r.origins).flatMap(([k, o]) => (o && o.kind !== 'default' ? [k] : [])),
  );
  return feedOptionsFrom(r.settings, { explicit });
}
