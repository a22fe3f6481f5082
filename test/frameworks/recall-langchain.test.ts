import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { makeAgent, RuleCheckingModel } from '../../examples/langchain/agent.ts';
import { RECALL_TOOL_DEFINITIONS } from '../../src/core/index.ts';
import {
  ctxkitRecallTools,
  fromLangChainMessages,
  toLangChainMessage,
} from '../../src/frameworks/langchain/index.ts';
import { expectAllFacts, RECALL_WINDOWS, type RecallProof, recallProof } from './support/recall-proof.ts';
import { HAVE_DATA, NO_DATA } from './support/replay.ts';

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

describe('ctxkitRecallTools (langchain, examples/langchain)', () => {
  it('rejects a tool set without the archive the middleware writes to', () => {
    expect(() => ctxkitRecallTools({} as never)).toThrow(/recall\.archive/);
  });

  it.skipIf(!HAVE_DATA).each(RECALL_WINDOWS)(
    'gets all ten early facts of a real session back through recall and reread after compaction at %i, every prompt within the window',
    async (window) => {
      const proof = recallProof(() => JSON.stringify(Object.values(RECALL_TOOL_DEFINITIONS)));
      const { replay, archive } = proof;
      // The session's own tools stay defined (its history calls them); the model calls only the recall tools.
      const own = replay.tools.map((name) =>
        tool(async () => '', { name, description: name, schema: z.looseObject({}) }),
      );
      const agent = makeAgent(
        new RecallScriptModel(proof),
        window,
        [...own, ...ctxkitRecallTools({ archive })],
        {
          recall: { archive },
        },
      );
      const history = [...replay.history, replay.prompt]
        .filter((m) => m.role !== 'system')
        .flatMap(toLangChainMessage);
      await agent.invoke({ messages: history }, { recursionLimit: 200 });
      expectAllFacts(proof, window);
    },
  );
  if (!HAVE_DATA) it.skip(NO_DATA, () => {});
});
