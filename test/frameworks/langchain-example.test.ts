import { HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { makeAgent, RuleCheckingModel } from '../../examples/langchain/agent.ts';
import { toLangChainMessage } from '../../src/frameworks/langchain/index.ts';
import { langChainViolations } from '../support/provider-rules.ts';
import { HAVE_TRAJECTORIES, loadTrajectory, TRAJECTORIES_MISSING } from '../support/trajectories.ts';

const SESSION = 'claude-code/258c7280-ae70-4798-800f-63464d01a85d.json';

describe('examples/langchain/agent.ts', () => {
  if (!HAVE_TRAJECTORIES) it.skip(TRAJECTORIES_MISSING, () => {});
  it.skipIf(!HAVE_TRAJECTORIES).each([64_000, 32_000])(
    'runs 10 tool steps after a long real session with 0 rule violations and the current turn verbatim at %i',
    async (contextWindow) => {
      const neutral = loadTrajectory(SESSION).messages;
      const history = neutral.filter((m) => m.role !== 'system').flatMap(toLangChainMessage);
      const model = new RuleCheckingModel(10);
      const agent = makeAgent(model, contextWindow);
      const ask = new HumanMessage({ content: 'Now read every part.', id: 'ask' });
      const out = await agent.invoke({ messages: [...history, ask] }, { recursionLimit: 60 });
      expect(model.calls).toBe(11);
      expect(model.violations).toEqual([]);
      // And by a checker that shares no code with ctxkit (test/support/provider-rules.ts).
      expect(model.prompts.flatMap((p) => langChainViolations(p))).toEqual([]);
      // The current turn (the question and every step after it) reaches every call verbatim.
      for (const [k, prompt] of model.prompts.entries()) {
        const at = prompt.findIndex((m) => m.id === 'ask');
        expect(at).toBeGreaterThanOrEqual(0);
        expect(prompt[at]).toBe(ask);
        expect(prompt.length - at).toBe(1 + 2 * k);
      }
      expect(out.messages.at(-1)?.content).toBe('Done: every part read.');
    },
  );
});
