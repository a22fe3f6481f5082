import { defineConfig } from 'vitest/config';

// One project per folder: the pure core, the Node CLI, the Worker (driven through Miniflare),
// the portability lane (core tests in Deno and workerd), the packed package and the conformance lanes.
export default defineConfig({
  test: {
    projects: [
      // Some core tests replay real trajectories: 1–6 s alone, longer on a loaded 2-core CI machine.
      { test: { name: 'core', include: ['test/core/**/*.test.ts'], testTimeout: 30_000 } },
      {
        // Each framework entry (ctxkit/ai-sdk, ctxkit/langchain, ctxkit/openai-agents, ctxkit/mastra) and
        // its example agent, on the framework's own mock model.
        test: { name: 'frameworks', include: ['test/frameworks/**/*.test.ts'], testTimeout: 120_000 },
      },
      { test: { name: 'cli', include: ['test/cli/**/*.test.ts'], testTimeout: 60_000 } },
      {
        test: {
          name: 'worker',
          include: ['test/worker/**/*.test.ts'],
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
