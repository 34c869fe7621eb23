import { defineConfig } from 'vitest/config';

// Two projects: unit (pure logic, property tests; no Docker) and integration (real
// containers, run one file at a time: the machine has 2 cores).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{src,checkers,workloads,test/unit}/**/*.test.ts'],
          testTimeout: 120_000,
          // A setup that builds fixtures (nights-workflow) outlasts 10 s on a loaded machine.
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // Tests a file marks concurrent (client-checks, each with servers of its own) run
          // two at a time, one per core.
          maxConcurrency: 2,
        },
      },
    ],
  },
});
