import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A home of their own, so upload state never carries over between tests or runs.
    setupFiles: ['test/setup/state-home.ts'],
    // Their temporary files under one directory, removed when the run ends.
    globalSetup: ['test/setup/temp-root.ts'],
    // CI runs the suite while the machine is busy: every test must finish within a third of its
    // timeout there. The CLI tests spawn genser several times (three nights, three quick starts):
    // 10-14 s each at a load average of 8 on two cores, so 60 s.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: keep the pool small so e2e tests that spawn the CLI do not starve each other.
    maxWorkers: 2,
  },
});
