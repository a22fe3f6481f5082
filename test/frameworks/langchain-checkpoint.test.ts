import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { RuleCheckingModel, readFile } from '../../examples/langchain/agent.ts';
import { createDeterministicSummarizer, type Summarizer } from '../../src/core/index.ts';
import {
  CONTEXT_STATE_KEY,
  ctxkitMiddleware,
  toLangChainMessage,
} from '../../src/frameworks/langchain/index.ts';
import { HAVE_TRAJECTORIES, loadTrajectory, TRAJECTORIES_MISSING } from '../support/trajectories.ts';

const SESSION = 'claude-code/258c7280-ae70-4798-800f-63464d01a85d.json';

function counting(): { summarizer: Summarizer; calls: () => number } {
  let n = 0;
  const inner = createDeterministicSummarizer();
  return {
    summarizer: {
      name: 'counting',
      summarize: (r) => {
        n++;
        return inner.summarize(r);
      },
    },
    calls: () => n,
  };
}

/** A process: its own model, middleware and agent, over the checkpointer they share. */
function process(checkpointer: MemorySaver, summarizer: Summarizer) {
  const model = new RuleCheckingModel(2);
  const agent = createAgent({
    model,
    tools: [readFile],
    checkpointer,
    middleware: [ctxkitMiddleware({ budget: { contextWindow: 32_000 }, summarizer })],
  });
  return { model, agent };
}

describe('ctxkitMiddleware with a checkpointer', () => {
  if (!HAVE_TRAJECTORIES) it.skip(TRAJECTORIES_MISSING, () => {});
  it.skipIf(!HAVE_TRAJECTORIES)(
    'saves its state with the thread, so a resumed process does not reduce the raw history again',
    async () => {
      const history = loadTrajectory(SESSION)
        .messages.filter((m) => m.role !== 'system')
        .flatMap(toLangChainMessage);
      const checkpointer = new MemorySaver();
      const config = { configurable: { thread_id: 'long' } };

      const first = counting();
      const a = process(checkpointer, first.summarizer);
      const out = await a.agent.invoke(
        { messages: [...history, new HumanMessage('Read two parts.')] },
        config,
      );
      expect(first.calls()).toBe(1);
      expect(a.model.violations).toEqual([]);
      expect(out[CONTEXT_STATE_KEY]).toMatchObject({ version: 1 });

      // A new process resumes the thread from the checkpointer: no second reduction of the history.
      const second = counting();
      const b = process(checkpointer, second.summarizer);
      await b.agent.invoke({ messages: [new HumanMessage('Now two more.')] }, config);
      expect(second.calls()).toBe(0);
      expect(b.model.violations).toEqual([]);
      expect(b.model.prompts[0]!.length).toBeLessThan(history.length / 4);

      // Without the saved state (a fresh thread holding the same raw history) it would reduce again.
      const third = counting();
      const c = process(new MemorySaver(), third.summarizer);
      await c.agent.invoke(
        { messages: [...out.messages, new HumanMessage('Now two more.')] },
        { configurable: { thread_id: 'copy' } },
      );
      expect(third.calls()).toBe(1);
    },
  );
});
