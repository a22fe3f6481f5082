import { describe, expect, it } from 'vitest';
import {
  CtxError,
  checkInvariants,
  createContext,
  createDeterministicSummarizer,
  type IncrementalContext,
  type Message,
  type Summarizer,
} from '../../../src/core/index.ts';
import { HAVE_TRAJECTORIES, loadTrajectory, TRAJECTORIES_MISSING } from '../../support/trajectories.ts';

// A long real Claude Code session, as it comes (recorded usage and all).
const SESSION = 'claude-code/258c7280-ae70-4798-800f-63464d01a85d.json';

function counting(): { summarizer: Summarizer; calls: () => number } {
  const inner = createDeterministicSummarizer();
  let n = 0;
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

/** Positions of the model calls: after each tool message an assistant message answers. */
const modelCalls = (messages: readonly Message[]) =>
  messages
    .map((_, i) => i)
    .filter((i) => messages[i]?.role === 'tool' && messages[i + 1]?.role === 'assistant');

/** The newest step: the last assistant message and everything after it. */
const newestStep = (history: readonly Message[]) =>
  history.slice(history.findLastIndex((m) => m.role === 'assistant'));

const applied = (run: { reports: { stage: string; status: string }[] }) =>
  run.reports.filter((r) => r.stage === 'compaction' && r.status === 'applied').length;

const textMessage = (role: 'user' | 'assistant', text: string, id: string): Message => ({
  id,
  role,
  parts: [{ type: 'text', text }],
});

const SYSTEM = { system: 'You are a coding agent.' };

describe('createContext', () => {
  if (!HAVE_TRAJECTORIES) it.skip(TRAJECTORIES_MISSING, () => {});

  describe.skipIf(!HAVE_TRAJECTORIES).each([
    ['the same objects', false],
    ['objects rebuilt every call', true],
  ])('a per-call hook resending the whole history (%s)', (_, rebuild) => {
    it.each([64_000, 32_000])(
      'summarises once per threshold crossing, sends the newest step as the caller’s objects and breaks no rule at %i',
      async (contextWindow) => {
        const messages = loadTrajectory(SESSION).messages;
        const { summarizer, calls } = counting();
        const ctx = createContext({ budget: { contextWindow }, summarizer, dialect: 'anthropic' });
        let crossings = 0;
        const positions = modelCalls(messages);
        expect(positions.length).toBeGreaterThan(100);
        for (const i of positions) {
          const history = rebuild ? structuredClone(messages.slice(0, i + 1)) : messages.slice(0, i + 1);
          const before = calls();
          const run = await ctx.prepare(history, SYSTEM);
          crossings += applied(run);
          expect(calls() - before, `call at ${i}`).toBeLessThanOrEqual(1);
          expect(run.match).toBe(i === positions[0] ? 'new' : 'continued');
          expect(checkInvariants(run.send, { dialect: 'anthropic' }), `call at ${i}`).toEqual([]);
          // The newest step is sent as the very objects the caller passed — but for an oversized tool
          // output, cut on arrival (before it is first sent).
          for (const m of newestStep(history))
            expect(
              run.send.includes(m) ||
                run.send.some((x) => x.id === m.id && x.meta?.truncatedAtArrival !== undefined),
              `${m.id} at ${i}`,
            ).toBe(true);
          // Every message that is not ctxkit's own is one of the caller's objects, unchanged.
          const mine = new Set(history);
          for (const m of run.send)
            if (!m.id.startsWith('summary') && history.some((h) => h.id === m.id && h.parts === m.parts))
              expect(mine.has(m)).toBe(true);
          expect(run.estimate.after).toBeLessThanOrEqual(ctx.pipeline.budget.usable);
        }
        expect(calls()).toBe(crossings);
        // A compaction brings the context to 30% of usable input (docs/cache.md), and what was sent
        // is reduced only when one happens: 5 compactions at 32K and 2 at 64K over this session.
        expect(crossings).toBe(contextWindow === 32_000 ? 5 : 2);
      },
    );
  });

  it.skipIf(!HAVE_TRAJECTORIES)(
    'keeps the turn’s question verbatim through its first ten steps at 32K',
    async () => {
      const messages = loadTrajectory(SESSION).messages;
      const question = messages.findLastIndex((m, i) => m.role === 'user' && i < 240);
      const ctx = createContext({ budget: { contextWindow: 32_000 }, dialect: 'anthropic' });
      const steps = modelCalls(messages)
        .filter((i) => i > question)
        .slice(0, 10);
      await ctx.prepare(messages.slice(0, question + 1), SYSTEM);
      for (const i of steps) {
        const run = await ctx.prepare(messages.slice(0, i + 1), SYSTEM);
        expect(run.send.includes(messages[question]!), `step at ${i}`).toBe(true);
      }
    },
  );

  describe.skipIf(!HAVE_TRAJECTORIES)('a history that changes under the context', () => {
    const messages = HAVE_TRAJECTORIES ? loadTrajectory(SESSION).messages : [];
    const ids = (list: readonly Message[]) => list.map((m) => m.id);

    /**
     * Every call finds the prompt cache cold (no TTL, a clock that moves on each read), so what the
     * context sends depends on the history alone, not on what it sent before (`default` defers rewrites
     * of what a warm cache holds).
     */
    const cold = () => {
      let t = 0;
      return { cache: { ttlMs: 0 }, clock: { now: () => ++t } };
    };

    async function warm(contextWindow: number, upTo: number): Promise<IncrementalContext> {
      const ctx = createContext({ budget: { contextWindow }, dialect: 'anthropic', ...cold() });
      for (const i of modelCalls(messages).filter((i) => i <= upTo))
        await ctx.prepare(messages.slice(0, i + 1), SYSTEM);
      return ctx;
    }

    it('sends what a fresh context sends for the edited history when a message is edited mid-way', async () => {
      const ctx = await warm(1_000_000, 120);
      const history = messages.slice(0, 121);
      const at = history.findIndex((m, i) => m.role === 'user' && i > 40);
      const edited = textMessage('user', 'Actually, use the staging database instead.', 'edit-1');
      history.splice(at, 1, edited);
      const run = await ctx.prepare(history, SYSTEM);
      expect(run.match).toBe('rebased');
      expect(run.fed).toBeGreaterThanOrEqual(history.length - at);
      expect(run.fed).toBeLessThan(history.length);
      const fresh = await createContext({
        budget: { contextWindow: 1_000_000 },
        dialect: 'anthropic',
        ...cold(),
      }).prepare(history, SYSTEM);
      expect(run.send).toEqual(fresh.send);
      expect(run.send).toContain(edited);
      expect(run.send.map((m) => m.id)).not.toContain(messages[at]!.id);
    });

    it('goes back to the latest call still in the history when it is rewound, at 32K', async () => {
      const ctx = await warm(32_000, 300);
      const history = [...messages.slice(0, 250), textMessage('user', 'Start over from here.', 'rewind-1')];
      const run = await ctx.prepare(history, SYSTEM);
      expect(run.match).toBe('rebased');
      expect(run.fed).toBeLessThan(history.length);
      const sent = ids(run.send);
      expect(new Set(sent).size).toBe(sent.length);
      expect(sent).toContain('rewind-1');
      for (const m of messages.slice(250)) expect(sent).not.toContain(m.id);
      expect(checkInvariants(run.send, { dialect: 'anthropic' })).toEqual([]);
    });

    it('feeds only the new messages when the caller kept the reduced view it was sent', async () => {
      const { summarizer, calls } = counting();
      const ctx = createContext({ budget: { contextWindow: 32_000 }, summarizer, dialect: 'anthropic' });
      // 115 messages: the first call compacts once (archiving alone brings 100 under the level).
      const first = await ctx.prepare(messages.slice(0, 115), SYSTEM);
      expect(applied(first)).toBe(1);
      const next = messages.slice(115, 119);
      const run = await ctx.prepare([...first.send, ...next], SYSTEM);
      expect(run.match).toBe('from-send');
      expect(run.fed).toBe(4);
      expect(calls()).toBe(1);
      for (const m of next) expect(run.send).toContain(m);
      const again = await ctx.prepare([...run.send, messages[119]!], SYSTEM);
      // Nothing was reduced in between: the kept view is the history last seen, continued.
      expect([again.match, again.fed]).toEqual(['continued', 1]);
    });

    it('returns the last run when nothing is new', async () => {
      const ctx = await warm(32_000, 200);
      const history = messages.slice(
        0,
        modelCalls(messages)
          .filter((i) => i <= 200)
          .at(-1)! + 1,
      );
      const a = await ctx.prepare(history, SYSTEM);
      const b = await ctx.prepare(structuredClone(history), SYSTEM);
      expect([a.match, b.match, b.fed]).toEqual(['unchanged', 'unchanged', 0]);
      expect(b.send).toEqual(a.send);
      const c = await ctx.prepare(history, { system: 'Another system prompt.' });
      expect(c.match).toBe('continued');
    });

    it('resumes from its JSON where it left off, as the same context would', async () => {
      const at = modelCalls(messages).filter((i) => i <= 200);
      const ctx = await warm(32_000, 200);
      const saved = JSON.parse(JSON.stringify(ctx.toJSON()));
      const resumed = createContext({
        budget: { contextWindow: 32_000 },
        dialect: 'anthropic',
        state: saved,
      });
      const history = structuredClone(messages.slice(0, at.at(-1)! + 4));
      const a = await ctx.prepare(history, SYSTEM);
      const b = await resumed.prepare(history, SYSTEM);
      expect([b.match, b.fed]).toEqual(['continued', 3]);
      expect(b.send).toEqual(a.send);
      for (const m of newestStep(history)) expect(b.send.includes(m)).toBe(true);
    });
  });

  describe('input', () => {
    it('rejects what is not a history, a message or a state, naming where', async () => {
      const ctx = createContext();
      await expect(ctx.prepare('hi' as never)).rejects.toMatchObject({
        code: 'invalid_input',
        path: 'history',
      });
      await expect(ctx.prepare([textMessage('user', 'a', 'u1'), null as never])).rejects.toMatchObject({
        code: 'invalid_input',
        path: 'history[1]',
      });
      expect(() => createContext({ state: { version: 2 } as never })).toThrow(CtxError);
      expect(() =>
        createContext({ state: { version: 1, seen: [], working: [], origin: [3], pipeline: {} } as never }),
      ).toThrow(/state\.origin/);
      expect(() => createContext({ checkpoints: 0 })).toThrow(/checkpoints/);
    });

    it('does not take a message again when the caller passes the same history twice', async () => {
      const ctx = createContext();
      const history = [textMessage('user', 'hello', 'u1')];
      const a = await ctx.prepare(history);
      const b = await ctx.prepare([...history, textMessage('assistant', 'hi', 'a1')]);
      expect([a.match, a.fed, b.match, b.fed]).toEqual(['new', 1, 'continued', 1]);
      expect(b.send[0]).toBe(history[0]);
    });
  });

  describe('tool approvals', () => {
    it('gives the model the approved call’s real result, not a made-up one, when the call waited for its approval', async () => {
      const ctx = createContext({ dialect: 'anthropic' });
      const history: Message[] = [
        textMessage('user', 'Delete the build folder.', 'u1'),
        {
          id: 'a1',
          role: 'assistant',
          parts: [
            { type: 'tool-call', id: 'c1', name: 'bash', args: { command: 'rm -rf build' } },
            { type: 'tool-approval', callId: 'c1', approvalId: 'ap1', phase: 'request' },
          ],
        },
      ];
      await ctx.prepare(history);
      // The user approves; the framework runs the call and hands over its result on the next call.
      history.push({
        id: 't1',
        role: 'tool',
        parts: [
          { type: 'tool-approval', callId: 'c1', approvalId: 'ap1', phase: 'response', approved: true },
        ],
      });
      const waiting = await ctx.prepare(history);
      expect(waiting.messages.flatMap((m) => m.parts.filter((p) => p.type === 'tool-result'))).toEqual([]);
      history.push({
        id: 't2',
        role: 'tool',
        parts: [{ type: 'tool-result', callId: 'c1', output: 'removed' }],
      });
      const run = await ctx.prepare(history);
      const results = run.send.flatMap((m) => m.parts.filter((p) => p.type === 'tool-result'));
      expect(results.map((p) => p.type === 'tool-result' && p.output)).toEqual(['removed']);
      expect(checkInvariants(run.send, { dialect: 'anthropic' })).toEqual([]);
    });
  });
});
