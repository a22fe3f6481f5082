import type { AgentInputItem } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import {
  checkInvariants,
  createDeterministicSummarizer,
  type Message,
  type Summarizer,
} from '../../src/core/index.ts';
import {
  ctxkitInputFilter,
  fromAgentInputItems,
  toAgentInputItem,
} from '../../src/frameworks/openai-agents/index.ts';
import { agentItemsViolations } from '../support/provider-rules.ts';
import { HAVE_TRAJECTORIES, loadTrajectory, TRAJECTORIES_MISSING } from '../support/trajectories.ts';

const SESSION = 'claude-code/258c7280-ae70-4798-800f-63464d01a85d.json';

/** The trajectory as the run's items (each message's items, in order), built once: the SDK's own objects. */
function asRun(messages: readonly Message[]) {
  const names = new Map<string, string>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call') names.set(p.id, p.name);
  const perMessage = messages.map((m) => toAgentInputItem(m, names));
  const ends: number[] = [];
  let n = 0;
  for (const items of perMessage) {
    n += items.length;
    ends.push(n);
  }
  return { items: perMessage.flat(), ends };
}

function counting(inner: Summarizer) {
  const c = { calls: 0 };
  const s: Summarizer = {
    name: 'counting',
    summarize: (r) => {
      c.calls++;
      return inner.summarize(r);
    },
  };
  return { s, c };
}

describe('ctxkitInputFilter', () => {
  if (!HAVE_TRAJECTORIES) it.skip(TRAJECTORIES_MISSING, () => {});
  it.skipIf(!HAVE_TRAJECTORIES).each([64_000, 32_000])(
    'sends every call of a long real session within the rules, summarising at most once per call, the new step verbatim, at %i',
    async (contextWindow) => {
      // The recorded usage stays: it measured Claude Code's own prompts, not what ctxkit sends, and the
      // context must not anchor on it.
      const messages = loadTrajectory(SESSION).messages;
      const { items, ends } = asRun(messages);
      // Model calls: after each tool message that an assistant message follows; 12 of them from the middle.
      const calls = messages
        .map((_, i) => i)
        .filter((i) => messages[i]?.role === 'tool' && messages[i + 1]?.role === 'assistant')
        .slice(40, 52);
      const { s, c } = counting(createDeterministicSummarizer());
      const filter = ctxkitInputFilter({ budget: { contextWindow }, summarizer: s });
      let summarised = 0;
      for (const i of calls) {
        const input: AgentInputItem[] = items.slice(0, ends[i]);
        const before = c.calls;
        const out = await filter({
          modelData: { input, instructions: 'You are a coding agent.' },
          agent: {} as never,
          context: undefined,
        });
        expect(c.calls - before).toBeLessThanOrEqual(1);
        if (c.calls > before) summarised++;
        const sent = fromAgentInputItems(out.input);
        expect(checkInvariants(sent, { dialect: 'responses' }), `call at message ${i}`).toEqual([]);
        // And by a checker that shares no code with ctxkit (test/support/provider-rules.ts).
        expect(agentItemsViolations(out.input), `call at message ${i}`).toEqual([]);
        // The model's newest step (its calls and text) is sent as the caller's own objects.
        const step = input.slice(ends[i - 2] ?? 0, ends[i - 1]);
        expect(
          step.every((x) => out.input.includes(x)),
          `call at message ${i}`,
        ).toBe(true);
      }
      expect(calls.length).toBeGreaterThanOrEqual(8);
      // Both windows cross the compaction threshold once in these steps (at 64K pruning no longer
      // rewrites what was sent to stay under it: docs/cache.md).
      expect(summarised).toBe(1);
    },
  );
});
