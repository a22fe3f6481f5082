import { defineConfig } from 'vitest/config';

/**
 * The test pyramid. `npm test` runs what proves behaviour — unit, property, integration, browser,
 * package, portability and conformance — inside CI's 12 minutes on 2 cores. The long replays and the
 * full property runs are `npm run test:slow` (CTXKIT_SLOW=1): every `*.slow.test.ts`, and the property
 * suites again at 400 histories per preset × dialect (100 in `npm test`). Each slow file names its fast
 * representative in `npm test`. The benches (`npm run bench:*`) measure; they do not gate.
 */
const SLOW = '**/*.slow.test.ts';
const slowLane = process.env.CTXKIT_SLOW === '1';

export default defineConfig({
  test: {
    // One test file per core at a time wastes CI's second core: most files wait on workerd, a child
    // process or the registry rather than compute.
    maxWorkers: 2,
    projects: slowLane
      ? [
          {
            test: {
              name: 'slow',
              include: [
                `test/${SLOW}`,
                'test/core/properties/*.test.ts',
                'test/core/stages/*.properties.test.ts',
              ],
              env: { CTXKIT_PROPERTY_RUNS: '400' },
              testTimeout: 600_000,
              hookTimeout: 600_000,
            },
          },
        ]
      : [
          // Some core tests replay real trajectories: 1–6 s alone, longer on a loaded 2-core CI machine.
          {
            test: { name: 'core', include: ['test/core/**/*.test.ts'], exclude: [SLOW], testTimeout: 30_000 },
          },
          {
            // Each framework entry (ctxkit/ai-sdk, ctxkit/langchain, ctxkit/openai-agents, ctxkit/mastra) and
            // its example agent, on the framework's own mock model.
            test: {
              name: 'frameworks',
              include: ['test/frameworks/**/*.test.ts'],
              exclude: [SLOW],
              testTimeout: 120_000,
            },
          },
          { test: { name: 'cli', include: ['test/cli/**/*.test.ts'], exclude: [SLOW], testTimeout: 60_000 } },
          {
            test: {
              name: 'worker',
              include: ['test/worker/**/*.test.ts'],
              exclude: [SLOW],
              testTimeout: 60_000,
              hookTimeout: 60_000,
            },
          },
          {
            // The context view in Debian's chromium (playwright-core) against `npm start`; skips without chromium.
            test: {
              name: 'browser',
              include: ['test/browser/**/*.test.ts'],
              testTimeout: 60_000,
              hookTimeout: 240_000,
            },
          },
          {
            test: {
              name: 'portability',
              include: ['test/portability/**/*.test.ts'],
              testTimeout: 180_000,
              hookTimeout: 180_000,
            },
          },
          {
            // The package as its users get it: npm pack, install into a fresh project, use (Node, require,
            // tsc, Deno, a Worker, the CLI). Needs the npm registry for zod.
            test: {
              name: 'package',
              include: ['test/package/**/*.test.ts'],
              exclude: [SLOW],
              testTimeout: 300_000,
              hookTimeout: 600_000,
            },
          },
          {
            test: {
              name: 'conformance',
              include: ['conformance/**/*.test.ts'],
              testTimeout: 300_000,
              hookTimeout: 300_000,
            },
          },
        ],
  },
});
