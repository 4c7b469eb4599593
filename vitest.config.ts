import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A home of their own, so upload state never carries over between tests or runs.
    setupFiles: ['test/setup/state-home.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores: keep the pool small so e2e tests that spawn the CLI do not starve each other.
    maxWorkers: 2,
  },
});
