/**
 * The conformance entry: the same `runFixture()` over every fixture, with the real pipeline. Bundled
 * unchanged for Deno and workerd by `test/support/runtimes.ts`; JSON in, JSON out.
 */
import { createPipeline, type FixturePipelineFactory, runFixture } from '../src/core/index.ts';

export interface ConformanceInput {
  fixtures: Array<{ file: string; fixture: unknown }>;
}

export interface ConformanceResult {
  file: string;
  name: string;
  passed: boolean;
  /** `path: message` of each failed expectation, or the error that stopped the fixture. */
  failures: string[];
}

export default async function run(input: ConformanceInput): Promise<{ results: ConformanceResult[] }> {
  const results: ConformanceResult[] = [];
  for (const { file, fixture } of input.fixtures) {
    try {
      const r = await runFixture(fixture, {
        createPipeline: createPipeline as unknown as FixturePipelineFactory,
      });
      results.push({
        file,
        name: r.name,
        passed: r.passed,
        failures: r.failures.map((f) => `${f.path}: ${f.message}`),
      });
    } catch (e) {
      results.push({
        file,
        name: file,
        passed: false,
        failures: [`threw: ${e instanceof Error ? e.message : String(e)}`],
      });
    }
  }
  return { results };
}
