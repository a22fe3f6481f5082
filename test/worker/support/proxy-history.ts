/**
 * Agent histories for the proxy tests, in each provider's wire format: turns of "user asks →
 * assistant calls read_file → a large tool output → assistant notes it", 4 messages per turn.
 */

function output(turn: number, lines: number): string {
  return Array.from(
    { length: lines },
    (_, i) =>
      `src/module${turn}/file.ts:${i + 1}: export const value${i} = compute(${turn}, ${i}); // line ${i}`,
  ).join('\n');
}

/** `turns × 4` OpenAI Chat Completions messages (no system). */
export function openAIHistory(turns: number, lines = 60): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (let t = 0; t < turns; t++) {
    out.push({
      role: 'user',
      content: `Step ${t}: read src/module${t}/file.ts and tell me what it exports.`,
    });
    out.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_${t}`,
          type: 'function',
          function: { name: 'read_file', arguments: JSON.stringify({ path: `src/module${t}/file.ts` }) },
        },
      ],
    });
    out.push({ role: 'tool', tool_call_id: `call_${t}`, content: output(t, lines) });
    out.push({ role: 'assistant', content: `Module ${t} exports ${lines} values computed from ${t}.` });
  }
  return out;
}

/** `turns × 4` Anthropic messages (tool results in user messages). */
export function anthropicHistory(turns: number, lines = 60): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (let t = 0; t < turns; t++) {
    out.push({
      role: 'user',
      content: `Step ${t}: read src/module${t}/file.ts and tell me what it exports.`,
    });
    out.push({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: `toolu_${t}`, name: 'read_file', input: { path: `src/module${t}/file.ts` } },
      ],
    });
    out.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${t}`, content: output(t, lines) }],
    });
    out.push({ role: 'assistant', content: `Module ${t} exports ${lines} values computed from ${t}.` });
  }
  return out;
}

export const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
];

export const ANTHROPIC_TOOLS = [
  {
    name: 'read_file',
    description: 'Read a file',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

/** `turns × 4` OpenAI Responses input items (function calls and their outputs). */
export function responsesHistory(turns: number, lines = 60): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (let t = 0; t < turns; t++) {
    out.push({
      role: 'user',
      content: `Step ${t}: read src/module${t}/file.ts and tell me what it exports.`,
    });
    out.push({
      type: 'function_call',
      call_id: `call_${t}`,
      name: 'read_file',
      arguments: JSON.stringify({ path: `src/module${t}/file.ts` }),
    });
    out.push({ type: 'function_call_output', call_id: `call_${t}`, output: output(t, lines) });
    out.push({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: `Module ${t} exports ${lines} values computed from ${t}.` }],
    });
  }
  return out;
}

export const RESPONSES_TOOLS = [
  {
    type: 'function',
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

/** A tool output over output truncation's 204,800-character limit (206,672): it is spilled to the blob store. */
export const SPILLED_OUTPUT = Array.from(
  { length: 3000 },
  (_, i) => `src/big/file.ts:${i + 1}: export const big${i} = ${i}; // padding padding`,
).join('\n');

/** An OpenAI Chat Completions tool call and its result `SPILLED_OUTPUT`. */
export function spilledTurn(): Array<Record<string, unknown>> {
  return [
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_big',
          type: 'function',
          function: { name: 'read_file', arguments: '{"path":"src/big/file.ts"}' },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'call_big', content: SPILLED_OUTPUT },
  ];
}
