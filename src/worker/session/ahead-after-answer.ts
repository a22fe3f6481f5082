/**
 * Compaction prepared after the answer: the session's Durable Object keeps its pipeline in memory, so
 * once a pre-flight has answered (`prepare`, a proxied turn), the compaction the session will need is
 * prepared there (`pipeline.ahead`, docs/compaction.md) on what that pre-flight returned, kept alive
 * with the object's `waitUntil`. The object owns the session, and the pipeline runs one preparation
 * at a time (a newer one waits for the running one), so preparations stay serialized per session; they
 * are not put in the write queue, because the next turn must not wait for a summary being written.
 * The next pre-flight at the compaction level applies the prepared result when its input still
 * starts with what it covers; an evicted object loses it and that pre-flight compacts inline.
 */
import type { AheadReport, Pipeline } from '../../core/index.ts';

type AheadInput = Parameters<Pipeline['ahead']>[0];

/** The latest pre-flight's result of each wrapped pipeline, at or above warning, not prepared yet. */
const latest = new WeakMap<Pipeline, { input?: AheadInput }>();

/** The pipeline, remembering each pre-flight's result for `prepareAfterAnswer`. */
export function aheadAfterAnswer(pipeline: Pipeline): Pipeline {
  const slot: { input?: AheadInput } = {};
  const wrapped: Pipeline = {
    ...pipeline,
    ahead: (input) => pipeline.ahead(input),
    async prepare(input) {
      const run = await pipeline.prepare(input);
      delete slot.input;
      if (run.estimate.level !== 'ok')
        slot.input = {
          messages: run.messages,
          state: run.state,
          ...(input.system !== undefined ? { system: input.system } : {}),
          ...(input.tools !== undefined ? { tools: input.tools } : {}),
          ...(input.dialect !== undefined ? { dialect: input.dialect } : {}),
        };
      return run;
    },
  };
  latest.set(wrapped, slot);
  return wrapped;
}

/**
 * Prepares the next compaction on the latest pre-flight's result, after the current task (the answer
 * goes out first). Undefined when there is nothing to prepare; never rejects (a failed preparation
 * only means the next compaction runs inline).
 */
export async function prepareAfterAnswer(pipeline: Pipeline | undefined): Promise<AheadReport | undefined> {
  const slot = pipeline && latest.get(pipeline);
  const input = slot?.input;
  if (!pipeline || !slot || !input) return undefined;
  delete slot.input;
  await new Promise((resolve) => setTimeout(resolve, 0));
  try {
    return await pipeline.ahead(input);
  } catch {
    return undefined;
  }
}
