import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every test file runs as a user of its own (HOME, git global config, XDG): see the file.
    setupFiles: ['test/helpers/setup-env.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
