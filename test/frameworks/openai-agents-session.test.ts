import { Agent, type AgentInputItem, MemorySession, run, tool } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { RuleCheckingModel, readFile } from '../../examples/openai-agents/agent.ts';
import { createCalibratedCounter } from '../../src/core/index.ts';
import {
  ctxkitInputFilter,
  ctxkitSession,
  fromAgentInputItems,
  toAgentInputItems,
} from '../../src/frameworks/openai-agents/index.ts';
import { HAVE_TRAJECTORIES, loadTrajectory, TRAJECTORIES_MISSING } from '../support/trajectories.ts';

const SESSION = 'claude-code/258c7280-ae70-4798-800f-63464d01a85d.json';
const bytes = (items: readonly unknown[]) => JSON.stringify(items).length;

describe('ctxkitSession', () => {
  if (!HAVE_TRAJECTORIES) it.skip(TRAJECTORIES_MISSING, () => {});
  it.skipIf(!HAVE_TRAJECTORIES)(
    'serves the runner a reduced view while the inner session keeps every item, over two runs at 32K',
    async () => {
      const history = toAgentInputItems(loadTrajectory(SESSION).messages.filter((m) => m.role !== 'system'));
      const inner = new MemorySession();
      await inner.addItems(history);
      const session = ctxkitSession(inner, { budget: { contextWindow: 32_000 } });
      const model = new RuleCheckingModel(4);
      const agent = new Agent({
        name: 'reader',
        instructions: 'You are a coding agent.',
        model,
        tools: [readFile],
      });

      const first = await run(agent, 'Now read every part.', { session, maxTurns: 20 });
      expect(first.finalOutput).toBe('Done: every part read.');
      // The raw log holds the whole old session, the question, 4 calls with their results and the answer.
      const raw = await inner.getItems();
      expect(raw.slice(0, history.length)).toEqual(history);
      expect(raw.length).toBe(history.length + 1 + 4 * 2 + 1);
      // What the model saw was reduced (the old session alone is far above 32K) and kept the rules.
      expect(model.violations).toEqual([]);
      for (const input of model.inputs) expect(bytes(input)).toBeLessThan(bytes(history) / 2);

      // Four more tool steps with new call ids (step_5 … step_8), then the answer.
      (model as { steps: number }).steps = model.calls + 4;
      const second = await run(agent, 'Read them again.', { session, maxTurns: 20 });
      expect(second.finalOutput).toBe('Done: every part read.');
      expect((await inner.getItems()).length).toBe(raw.length + 1 + 4 * 2 + 1);
      expect(model.violations).toEqual([]);
      const last = model.inputs.at(-1)!;
      expect(last.some((x) => 'role' in x && x.role === 'user' && x.content === 'Read them again.')).toBe(
        true,
      );
    },
  );

  it('starts the view at a server compaction while the raw log keeps what came before', async () => {
    const inner = new MemorySession();
    const old: AgentInputItem[] = [
      { role: 'user', content: 'first question' },
      { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'first answer' }] },
    ];
    await inner.addItems(old);
    const session = ctxkitSession(inner, { budget: { contextWindow: 32_000 } });
    const kept: AgentInputItem = { role: 'user', content: 'second question' };
    await session.replaceHistoryWithCompaction?.([
      { type: 'compaction', encrypted_content: 'enc-1' } as AgentInputItem,
      kept,
    ]);
    const view = await session.getItems();
    expect(view.map((x) => ('type' in x ? x.type : undefined) ?? ('role' in x ? x.role : ''))).toEqual([
      'compaction',
      'user',
    ]);
    expect(view[0]).toMatchObject({ type: 'compaction', encrypted_content: 'enc-1' });
    expect((await inner.getItems()).slice(0, 2)).toEqual(old);
    expect(await session.getItems(1)).toEqual([view[1]]);
  });

  it('forgets what it has seen when the session is cleared', async () => {
    const inner = new MemorySession();
    const session = ctxkitSession(inner, { contextWindow: 32_000 });
    await session.addItems([{ role: 'user', content: 'hello' }]);
    expect(await session.getItems()).toHaveLength(1);
    await session.clearSession();
    expect(await session.getItems()).toEqual([]);
    expect(await inner.getItems()).toEqual([]);
  });
});

describe('ctxkitSession and ctxkitInputFilter over one long run', () => {
  // Twelve reads of ~3,000 tokens each at a 16K window: the run's own steps outgrow the window.
  const bigRead = tool({
    name: 'read_file',
    description: 'Read a file',
    parameters: z.object({ path: z.string() }),
    execute: async ({ path }) =>
      `// ${path}\n${'export const value = compute(input, options);\n'.repeat(260)}`,
  });
  const counter = createCalibratedCounter();
  const tokens = (input: readonly AgentInputItem[]) =>
    fromAgentInputItems(input).reduce((n, m) => n + counter.countMessage(m), 0);

  async function largestInput(mode: 'session' | 'filter'): Promise<number> {
    const model = new RuleCheckingModel(12);
    const agent = new Agent({ name: 'reader', instructions: 'You read files.', model, tools: [bigRead] });
    const inner = new MemorySession();
    await inner.addItems([{ role: 'user', content: 'Earlier question.' }]);
    if (mode === 'session')
      await run(agent, 'Read twelve files.', {
        session: ctxkitSession(inner, { contextWindow: 16_384 }),
        maxTurns: 20,
      });
    else
      await run(agent, 'Read twelve files.', {
        session: inner,
        callModelInputFilter: ctxkitInputFilter({ contextWindow: 16_384 }),
        maxTurns: 20,
      });
    expect(model.violations).toEqual([]);
    return Math.max(...model.inputs.map(tokens));
  }

  it("reduces what a run starts from but not the run's own steps, which the input filter keeps under the window", async () => {
    // What a session is: the runner reads it once, when the run starts.
    expect(await largestInput('session')).toBeGreaterThan(16_384 * 1.5);
    // The filter sees every model call.
    expect(await largestInput('filter')).toBeLessThan(16_384);
  });
});
