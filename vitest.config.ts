import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['api/**/*.test.ts', 'schema/**/*.test.ts', 'widget/**/*.test.ts', 'widget/**/*.test.tsx'],
    globalSetup: ['./api/test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
