// Writes the README's option and environment tables from the option table (src/cli/option-table.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { withOptionDocs } from '../dist/cli/option-docs.js';

const path = new URL('../README.md', import.meta.url);
const next = withOptionDocs(readFileSync(path, 'utf8'));
if (next === undefined) {
  console.error('README.md has no <!-- options:start ... --> / <!-- options:end --> markers');
  process.exit(1);
}
writeFileSync(path, next);
