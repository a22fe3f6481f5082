import type { AgentInputItem } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { RuleCheckingModel, runAgent } from '../../examples/openai-agents/agent.ts';
import { toAgentInputItems } from '../../src/frameworks/openai-agents/index.ts';
import { agentItemsViolations } from '../support/provider-rules.ts';
import { HAVE_TRAJECTORIES, loadTrajectory, TRAJECTORIES_MISSING } from '../support/trajectories.ts';

const SESSION = 'claude-code/258c7280-ae70-4798-800f-63464d01a85d.json';

describe('examples/openai-agents/agent.ts', () => {
  if (!HAVE_TRAJECTORIES) it.skip(TRAJECTORIES_MISSING, () => {});
  it.skipIf(!HAVE_TRAJECTORIES).each([64_000, 32_000])(
    'runs 10 tool steps after a long real session with 0 rule violations and the current turn verbatim at %i',
    async (contextWindow) => {
      // Recorded usage measured Claude Code's unreduced prompts: dropped (the fake model reports its own).
      const neutral = loadTrajectory(SESSION).messages;
      const history = toAgentInputItems(neutral.filter((m) => m.role !== 'system'));
      const ask: AgentInputItem = { role: 'user', content: 'Now read every part.' };
      const model = new RuleCheckingModel(10);
      const result = await runAgent(model, [...history, ask], contextWindow);
      expect(model.calls).toBe(11);
      expect(model.violations).toEqual([]);
      // And by a checker that shares no code with ctxkit (test/support/provider-rules.ts).
      expect(model.inputs.flatMap((p) => agentItemsViolations(p))).toEqual([]);
      for (const [k, input] of model.inputs.entries()) {
        const at = input.findIndex(
          (x) => 'role' in x && x.role === 'user' && x.content === 'Now read every part.',
        );
        expect(at, `call ${k}`).toBeGreaterThanOrEqual(0);
        expect(input.length - at, `call ${k}`).toBe(1 + 2 * k);
      }
      expect(result.finalOutput).toBe('Done: every part read.');
    },
  );
});
