#!/usr/bin/env node
// Thin on purpose: all logic lives in dist/ (built by `npm run build`, run on install by `prepare`).
import { run } from '../dist/cli/main.js';

run(process.argv);
