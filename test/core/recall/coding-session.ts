import { assistant, type Message, toolCall, toolResult, user } from '../../../src/core/index.ts';

/** A coding session: each turn reads a file whose output names a fact of its own (`FACT-i`). */
export function codingSession(turns: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < turns; i++) {
    out.push(user(`step ${i}: read src/module${i}.ts and tell me its version`, { id: `u${i}` }));
    out.push(assistant('', [toolCall(`c${i}`, 'read_file', { path: `src/module${i}.ts` })], { id: `a${i}` }));
    const body = Array.from(
      { length: 60 },
      (_, k) => `export const value${k} = ${i * 1000 + k}; // padding text for size`,
    ).join('\n');
    out.push(
      toolResult(
        `c${i}`,
        'read_file',
        `// FACT-${i}: version 7.${i}.3 commit ${(0xabc000 + i).toString(16)}\n${body}`,
        { id: `t${i}` },
      ),
    );
    out.push(assistant(`module${i} is at version 7.${i}.3`, [], { id: `r${i}` }));
  }
  return out;
}
