export default {
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
