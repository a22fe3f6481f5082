import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import * as z from 'zod';
import { makeAgent, RuleCheckingModel } from '../../examples/langchain/agent.ts';
import {
  ctxkitRecallTools,
  fromLangChainMessages,
  toLangChainMessage,
} from '../../src/frameworks/langchain/index.ts';
import { type RecallProof, recallProofSuite } from './support/recall-proof.ts';

/** The example's fake chat model, scripted by the recall procedure from the prompt it is sent. */
class RecallScriptModel extends RuleCheckingModel {
  n = 0;
  constructor(readonly proof: RecallProof) {
    super(0);
  }
  override async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const call = this.proof.step(fromLangChainMessages(messages));
    const message = call
      ? new AIMessage({
          content: '',
          tool_calls: [{ id: `recall_${this.n++}`, name: call.tool, args: call.args, type: 'tool_call' }],
        })
      : new AIMessage('done');
    return { generations: [{ text: String(message.content), message }] };
  }
}

recallProofSuite('langchain', ctxkitRecallTools, async (proof, window) => {
  const { replay, recall } = proof;
  // The session's own tools stay defined (its history calls them); the model calls only the recall tools.
  const own = replay.tools.map((name) =>
    tool(async () => '', { name, description: name, schema: z.looseObject({}) }),
  );
  const tools = [...own, ...(await ctxkitRecallTools(recall))];
  const agent = makeAgent(new RecallScriptModel(proof), window, tools, { recall });
  const history = [...replay.history, replay.prompt]
    .filter((m) => m.role !== 'system')
    .flatMap(toLangChainMessage);
  await agent.invoke({ messages: history }, { recursionLimit: 200 });
});
