import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { agentItemsViolations, aiSdkViolations, langChainViolations } from '../support/provider-rules.ts';

const call = (id: string) => ({ type: 'tool-call', toolCallId: id, toolName: 'read', input: {} });
const result = (id: string) => ({
  type: 'tool-result',
  toolCallId: id,
  toolName: 'read',
  output: { type: 'text', value: 'x' },
});

describe('aiSdkViolations', () => {
  it('finds nothing in a valid prompt whose tool messages follow their calls', () => {
    const prompt = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'read' }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'I will read' }, call('c1'), call('c2')] },
      { role: 'tool', content: [result('c1')] },
      { role: 'tool', content: [result('c2')] },
      { role: 'user', content: [{ type: 'text', text: 'and?' }] },
    ];
    expect(aiSdkViolations(prompt)).toEqual([]);
  });

  it('names an unanswered call, an orphan result, a reasoning-only turn and an assistant first', () => {
    expect(
      aiSdkViolations([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [call('c1')] },
      ]),
    ).toEqual(['tool_use c1 (message 1) is not answered in the next message']);
    expect(
      aiSdkViolations([
        { role: 'user', content: 'go' },
        { role: 'tool', content: [result('c9')] },
      ]),
    ).toEqual(['tool_result c9 (message 0) answers no tool_use of the message before']);
    expect(
      aiSdkViolations([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }] },
      ]),
    ).toEqual(['assistant message 1 holds reasoning alone']);
    expect(aiSdkViolations([{ role: 'assistant', content: 'hi' }])).toEqual([
      'the first message is not the user’s',
    ]);
  });
});

describe('langChainViolations', () => {
  it('finds nothing in a valid list and names a ToolMessage whose call is not right before', () => {
    const ai = new AIMessage({
      content: '',
      tool_calls: [{ id: 'c1', name: 'read', args: {}, type: 'tool_call' }],
    });
    const ok = [
      new SystemMessage('s'),
      new HumanMessage('go'),
      ai,
      new ToolMessage({ tool_call_id: 'c1', content: 'x' }),
    ];
    expect(langChainViolations(ok)).toEqual([]);
    expect(
      langChainViolations([new HumanMessage('go'), new ToolMessage({ tool_call_id: 'c1', content: 'x' })]),
    ).toEqual(['tool_result c1 (message 0) answers no tool_use of the message before']);
    expect(langChainViolations([new HumanMessage('go'), ai, new HumanMessage('next')])).toEqual([
      'tool_use c1 (message 1) is not answered in the next message',
    ]);
  });
});

describe('agentItemsViolations', () => {
  it('finds nothing when each call has its output after it, and names the other cases', () => {
    const fc = (id: string) => ({ type: 'function_call', callId: id, name: 'read', arguments: '{}' });
    const fr = (id: string) => ({
      type: 'function_call_result',
      callId: id,
      name: 'read',
      status: 'completed',
      output: 'x',
    });
    expect(
      agentItemsViolations([
        { role: 'user', content: 'go' },
        { type: 'reasoning', content: [] },
        fc('a'),
        fr('a'),
      ]),
    ).toEqual([]);
    expect(agentItemsViolations([fr('a'), fc('a'), fr('a')])).toEqual([
      'function_call_output a (item 0) follows no call',
      'function_call_output a twice',
    ]);
    expect(agentItemsViolations([fc('a')])).toEqual(['function_call a (item 0) has no output']);
    expect(
      agentItemsViolations([
        { type: 'reasoning', content: [] },
        { role: 'user', content: 'x' },
      ]),
    ).toEqual(['reasoning item 0 is not followed by the output it produced']);
  });
});
