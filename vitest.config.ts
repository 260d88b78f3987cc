export default {
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60000,
    hookTimeout: 120000,
    pool: 'forks',
  },
};
