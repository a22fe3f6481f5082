import { type AgentInputItem, type ModelRequest, tool, Usage } from '@openai/agents';
import * as z from 'zod';
import { RuleCheckingModel, runAgent } from '../../examples/openai-agents/agent.ts';
import {
  ctxkitRecallTools,
  fromAgentInputItems,
  toAgentInputItems,
} from '../../src/frameworks/openai-agents/index.ts';
import { type RecallProof, recallProofSuite } from './support/recall-proof.ts';

/** The example's fake model, scripted by the recall procedure from the input it is sent. */
class RecallScriptModel extends RuleCheckingModel {
  n = 0;
  constructor(readonly proof: RecallProof) {
    super(0);
  }
  override async getResponse(request: ModelRequest) {
    const input = typeof request.input === 'string' ? [] : (request.input as AgentInputItem[]);
    const call = this.proof.step(fromAgentInputItems(input));
    const text = { type: 'output_text' as const, text: 'done' };
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
            content: [text],
          },
        ];
    return { usage: new Usage(), output };
  }
}

recallProofSuite('openai-agents', ctxkitRecallTools, async (proof, window) => {
  const { replay, recall } = proof;
  // The session's own tools stay defined (its history calls them); the model calls only the recall tools.
  const own = replay.tools.map((name) =>
    tool({ name, description: name, parameters: z.object({}), execute: async () => '' }),
  );
  const history = toAgentInputItems([...replay.history, replay.prompt].filter((m) => m.role !== 'system'));
  await runAgent(
    new RecallScriptModel(proof),
    history,
    window,
    [...own, ...(await ctxkitRecallTools(recall))],
    {
      recall,
    },
  );
});
