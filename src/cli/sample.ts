import { join } from 'node:path';
import { UsageError } from '../shared/errors.js';
import { packageRoot } from '../shared/paths.js';

/**
 * `genser upload --sample`: the 25-product catalog shipped in the package (the README's Quick
 * start), so an installed genser can be tried without a feed of one's own. It goes only where it
 * cannot land in a real shop: the embedded sandbox, or nowhere (a dry run).
 */
export const SAMPLE_CATALOG = join(packageRoot, 'fixtures', 'catalog.csv');

export function feedFiles(
  files: string[],
  s: { sample?: boolean; sandbox?: boolean; dryRun?: boolean },
): string[] {
  if (!s.sample) return files;
  if (files.length > 0)
    throw new UsageError(
      '--sample takes no feed: it uploads the sample catalog shipped with genser',
      'drop the file names, or drop --sample',
    );
  if (!s.sandbox && !s.dryRun)
    throw new UsageError(
      '--sample uploads made-up products: it goes only to the embedded sandbox or a dry run',
      'add --sandbox (or --dry-run)',
    );
  return [SAMPLE_CATALOG];
}
