import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores: keep the pool small so e2e tests that spawn the CLI do not starve each other.
    maxWorkers: 2,
  },
});
