/**
 * A generated coding session for the benches' untimed warm-up: reads, re-reads after edits (dedup's
 * tiers), shell output of every size (arrival truncation at each window) and enough of it to compact
 * at 128K — so that a measured pass meets the pre-flight's code compiled, as a process that has run
 * sessions before does. Nothing of it is measured; it shares no message with the recorded sessions.
 */
import { fromOpenAI } from '../../src/core/adapters/openai.ts';
import type { ReplaySession } from '../replay-sessions.ts';

/** `n` lines of code-like text, different for each `seed`. */
function code(seed: string, n: number): string {
  return Array.from(
    { length: n },
    (_, i) =>
      `${String(i + 1).padStart(6)}→  const ${seed}_${i} = compute(${i}, "${seed}-${(i * 7919) % 1000}");`,
  ).join('\n');
}

export function warmSession(steps = 400): ReplaySession {
  const raw: Array<Record<string, unknown>> = [
    { role: 'user', content: 'Fix the failing tests in src/ and keep the API as it is.' },
  ];
  const call = (id: string, name: string, args: Record<string, unknown>, output: string, text = '') => {
    raw.push({
      role: 'assistant',
      content: text,
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    raw.push({ role: 'tool', tool_call_id: id, content: output });
  };
  for (let k = 0; k < steps; k++) {
    const file = `src/module-${k % 7}.ts`;
    switch (k % 5) {
      case 0:
        call(`r${k}`, 'Read', { file_path: file }, code(`m${k % 7}_${Math.floor(k / 35)}`, 40 + (k % 60)));
        break;
      case 1:
        call(
          `e${k}`,
          'Edit',
          { file_path: file, old_string: `v${k}`, new_string: `w${k}` },
          'The file was updated.',
        );
        break;
      case 2:
        call(
          `g${k}`,
          'Grep',
          { pattern: `compute_${k % 11}`, path: 'src' },
          `${file}:${k}: compute_${k % 11}(x)`,
        );
        break;
      case 3:
        call(`b${k}`, 'Bash', { command: `npm test -- case${k}` }, code(`t${k}`, k % 20 === 3 ? 900 : 30));
        break;
      default:
        raw.push({ role: 'assistant', content: `Step ${k}: the tests of ${file} pass; moving on.` });
        raw.push({
          role: 'user',
          content: k % 45 === 4 ? 'Always run the linter before a commit.' : 'Continue.',
        });
    }
  }
  raw.push({ role: 'assistant', content: 'Done.' });
  const messages = fromOpenAI(raw, { path: 'warm-session' });
  const at = messages.flatMap((m, i) => (m.role === 'assistant' && i > 0 ? [i] : []));
  return { group: 'warm-up', name: 'warm-session', messages, steps: at };
}
