import { defineConfig } from 'vitest/config';

// Two projects: unit (pure logic, property tests; no Docker), its files two at a time,
// then integration (real containers, one file at a time: the machine has 2 cores). Left
// to its default, vitest ran the unit files one at a time too (212 s of a CI run).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{src,checkers,workloads,test/unit}/**/*.test.ts'],
          sequence: { groupOrder: 0 },
          maxWorkers: 2,
          testTimeout: 120_000,
          // A setup that builds fixtures (nights-workflow) outlasts 10 s on a loaded machine.
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          sequence: { groupOrder: 1 },
          testTimeout: 300_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // Tests a file marks concurrent (client-checks, each with servers of its own) run
          // two at a time, one per core.
          maxConcurrency: 2,
        },
      },
      {
        // Long acceptance checks, run by hand (npm run test:acceptance), not by npm test.
        test: {
          name: 'acceptance',
          include: ['test/acceptance/**/*.test.ts'],
          sequence: { groupOrder: 2 },
          testTimeout: 600_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
