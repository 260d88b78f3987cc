export default {
  // src/write-file.cts is CommonJS for the command's CommonJS entry and imported by the ES modules: vite transforms .cts too.
  esbuild: { include: /\.(m|c)?tsx?$/ },
  test: {
    globalSetup: ['test/global-setup.ts'],
    // A fixed fast-check seed per run (test/fast-check-seed.ts).
    setupFiles: ['test/fast-check-seed.ts'],
    testTimeout: 60000,
    hookTimeout: 120000,
    pool: 'forks',
    // Suites the tests write are not kept in the user's cache folder (test/lowered.test.ts sets its own).
    env: { LITMUS_CACHE_DIR: 'off' },
  },
};
