import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import {
  checkInvariants,
  createDeterministicSummarizer,
  type Message,
  type Summarizer,
} from '../../src/core/index.ts';
import {
  ctxkitMiddleware,
  fromLangChainMessages,
  toLangChainMessage,
} from '../../src/frameworks/langchain/index.ts';
import { langChainViolations } from '../support/provider-rules.ts';
import { HAVE_TRAJECTORIES, loadTrajectory, TRAJECTORIES_MISSING } from '../support/trajectories.ts';

const SESSION = 'claude-code/258c7280-ae70-4798-800f-63464d01a85d.json';

describe('ctxkitMiddleware', () => {
  if (!HAVE_TRAJECTORIES) it.skip(TRAJECTORIES_MISSING, () => {});
  it.skipIf(!HAVE_TRAJECTORIES).each([64_000, 32_000])(
    'sends every call of a long real session within Anthropic’s rules, summarising at most once per call, the new step verbatim, at %i',
    async (contextWindow) => {
      // Recorded usage measured Claude Code's unreduced prompts: dropped, as in the Agents SDK test.
      const neutral: Message[] = loadTrajectory(SESSION).messages;
      const state: BaseMessage[] = neutral.flatMap(toLangChainMessage);
      const calls = neutral
        .map((_, i) => i)
        .filter((i) => neutral[i]?.role === 'tool' && neutral[i + 1]?.role === 'assistant')
        .slice(40, 52);
      let summaries = 0;
      const inner = createDeterministicSummarizer();
      const summarizer: Summarizer = {
        name: 'counting',
        summarize: (r) => {
          summaries++;
          return inner.summarize(r);
        },
      };
      const mw = ctxkitMiddleware({ budget: { contextWindow }, summarizer });
      const wrap = mw.wrapModelCall!;
      let crossings = 0;
      for (const i of calls) {
        // The graph state holds LangChain messages; message i is the last one before the model call.
        const upTo = neutral
          .slice(0, i + 1)
          .flatMap((m) => m.parts.filter((p) => p.type === 'tool-result').length || 1);
        const messages = state.slice(
          0,
          upTo.reduce((a, b) => a + b, 0),
        );
        let sent: BaseMessage[] = [];
        const before = summaries;
        await wrap(
          {
            messages,
            systemPrompt: 'You are a coding agent.',
            runtime: { configurable: { thread_id: 't1' } },
          } as never,
          (req) => {
            sent = req.messages;
            return new AIMessage('ok');
          },
        );
        expect(summaries - before).toBeLessThanOrEqual(1);
        if (summaries > before) crossings++;
        expect(
          checkInvariants(fromLangChainMessages(sent), { dialect: 'anthropic' }),
          `call at ${i}`,
        ).toEqual([]);
        // And by a checker that shares no code with ctxkit (test/support/provider-rules.ts).
        expect(langChainViolations(sent), `call at ${i}`).toEqual([]);
        const last = messages.at(-1)!;
        const step = messages.slice(messages.lastIndexOf(messages.findLast((m) => m.type === 'ai')!));
        expect(
          step.filter((m) => m !== last).every((m) => sent.includes(m)),
          `call at ${i}`,
        ).toBe(true);
      }
      expect(calls.length).toBeGreaterThanOrEqual(8);
      // Once each: at 64K too, since pruning and archiving no longer rewrite what was sent to put the
      // compaction off (docs/cache.md).
      expect(crossings).toBe(1);
    },
  );
});
