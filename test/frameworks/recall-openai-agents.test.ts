import { type AgentInputItem, type ModelRequest, tool, Usage } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { RuleCheckingModel, runAgent } from '../../examples/openai-agents/agent.ts';
import { RECALL_TOOL_DEFINITIONS } from '../../src/core/index.ts';
import {
  ctxkitRecallTools,
  fromAgentInputItems,
  toAgentInputItems,
} from '../../src/frameworks/openai-agents/index.ts';
import { expectAllFacts, RECALL_WINDOWS, type RecallProof, recallProof } from './support/recall-proof.ts';
import { HAVE_DATA, NO_DATA } from './support/replay.ts';

/** The example's fake model, scripted by the recall procedure from the input it is sent. */
class RecallScriptModel extends RuleCheckingModel {
  n = 0;
  constructor(readonly proof: RecallProof) {
    super(0);
  }
  override async getResponse(request: ModelRequest) {
    const input = typeof request.input === 'string' ? [] : (request.input as AgentInputItem[]);
    const call = this.proof.step(fromAgentInputItems(input));
    const output = call
      ? [
          {
            type: 'function_call' as const,
            callId: `recall_${this.n++}`,
            name: call.tool,
            arguments: JSON.stringify(call.args),
            status: 'completed' as const,
          },
        ]
      : [
          {
            type: 'message' as const,
            role: 'assistant' as const,
            status: 'completed' as const,
            content: [{ type: 'output_text' as const, text: 'done' }],
          },
        ];
    return { usage: new Usage(), output };
  }
}

describe('ctxkitRecallTools (openai-agents, examples/openai-agents)', () => {
  it('rejects a tool set without the archive the input filter writes to', () => {
    expect(() => ctxkitRecallTools({} as never)).toThrow(/recall\.archive/);
  });

  it.skipIf(!HAVE_DATA).each(RECALL_WINDOWS)(
    'gets all ten early facts of a real session back through recall and reread after compaction at %i, every prompt within the window',
    async (window) => {
      const proof = recallProof(() => JSON.stringify(Object.values(RECALL_TOOL_DEFINITIONS)));
      const { replay, archive } = proof;
      // The session's own tools stay defined (its history calls them); the model calls only the recall tools.
      const own = replay.tools.map((name) =>
        tool({ name, description: name, parameters: z.object({}), execute: async () => '' }),
      );
      const history = toAgentInputItems(
        [...replay.history, replay.prompt].filter((m) => m.role !== 'system'),
      );
      const model = new RecallScriptModel(proof);
      await runAgent(model, history, window, [...own, ...ctxkitRecallTools({ archive })], {
        recall: { archive },
      });
      expectAllFacts(proof, window);
    },
  );
  if (!HAVE_DATA) it.skip(NO_DATA, () => {});
});
