import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkInvariants,
  fromAnthropic,
  fromGemini,
  fromOpenAI,
  fromResponses,
  type Message,
  repairMessages,
  toAnthropic,
  toGemini,
  toOpenAI,
  toResponses,
} from '../../src/core/index.ts';

const DATA = resolve(import.meta.dirname, '../../../shared/data/trajectories');
const present = existsSync(DATA);
if (!present)
  console.warn(`skipping trajectory conversion: ${DATA} not found (the shared data sits beside the repo)`);

interface Trajectory {
  id: string;
  messages: Array<Record<string, unknown>>;
}

function load(): Array<[string, Trajectory]> {
  if (!present) return [];
  return readdirSync(DATA).flatMap((dir) =>
    readdirSync(join(DATA, dir))
      .filter((f) => f.endsWith('.json'))
      .map((f): [string, Trajectory] => [
        `${dir}/${f}`,
        JSON.parse(readFileSync(join(DATA, dir, f), 'utf8')) as Trajectory,
      ]),
  );
}

/** The fields the OpenAI format has (usage is an extension of the trajectory files, compared separately). */
function comparable(m: Record<string, unknown>): Record<string, unknown> {
  const { usage: _u, ...rest } = m;
  if (rest.role === 'assistant' && rest.content === '' && rest.tool_calls) rest.content = null;
  return rest;
}

const all = load();

describe.skipIf(!present)('trajectory conversion', () => {
  it('converts every trajectory and round-trips every OpenAI field', () => {
    expect(all.length).toBeGreaterThan(150);
    for (const [name, t] of all) {
      const neutral = fromOpenAI(t.messages, { path: `${name}:messages` });
      const back = toOpenAI(neutral, { trajectory: true });
      expect(back.map(comparable), name).toEqual(t.messages.map(comparable));
    }
  });

  it('keeps the reported prompt tokens of every assistant usage', () => {
    for (const [name, t] of all) {
      const neutral = fromOpenAI(t.messages);
      t.messages.forEach((m, i) => {
        const u = m.usage as Record<string, number> | undefined;
        if (!u) return;
        expect(neutral[i]!.usage?.inputTokens, `${name}[${i}]`).toBe(u.prompt_tokens ?? u.input_tokens);
      });
    }
  });

  it('round-trips through the Anthropic form with pairs intact', () => {
    for (const [name, t] of all) {
      const neutral = repairMessages(fromOpenAI(t.messages), { dialect: 'anthropic' }).messages;
      const again = fromAnthropic(toAnthropic(neutral));
      expect(checkInvariants(again, { dialect: 'anthropic' }), name).toEqual([]);
    }
  });

  it('round-trips through the Responses and Gemini forms with every text, call and result kept', () => {
    // What each form carries of a neutral conversation: roles, texts, calls and results (reasoning from
    // Chat Completions is not sent to either API, so it is left out of the comparison).
    // Gemini wants an object as a function response: text comes back under `result` (`error` when the
    // result was an error).
    const geminiResponse = (p: { output: unknown; isError?: boolean }) =>
      p.isError
        ? { error: p.output }
        : p.output !== null && typeof p.output === 'object' && !Array.isArray(p.output)
          ? p.output
          : { result: p.output };
    const shape = (ms: readonly Message[], gemini = false) =>
      ms.flatMap((m) =>
        m.parts.flatMap((p) => {
          if (p.type === 'text') return [`${m.role}:${p.text}`];
          if (p.type === 'tool-call') return [`call ${p.id} ${p.name} ${JSON.stringify(p.args)}`];
          if (p.type === 'tool-result')
            return [`result ${p.callId} ${JSON.stringify(gemini ? geminiResponse(p) : p.output)}`];
          return [];
        }),
      );
    let checked = 0;
    for (const [name, t] of all) {
      const neutral = fromOpenAI(t.messages);
      for (const dialect of ['responses', 'gemini'] as const) {
        const fixed = repairMessages(neutral, { dialect }).messages;
        const again =
          dialect === 'responses' ? fromResponses(toResponses(fixed)) : fromGemini(toGemini(fixed));
        expect(checkInvariants(again, { dialect }), `${name} ${dialect}`).toEqual([]);
        expect(shape(again), `${name} ${dialect}`).toEqual(shape(fixed, dialect === 'gemini'));
        checked++;
      }
    }
    expect(checked).toBe(all.length * 2);
  });

  it('pairs the reused tool-call ids of tau-bench with the nearest open call', () => {
    let reused = 0;
    for (const [name, t] of all.filter(([n]) => n.startsWith('tau-bench/'))) {
      const neutral = fromOpenAI(t.messages);
      const seen = new Set<string>();
      for (const m of neutral)
        for (const p of m.parts)
          if (p.type === 'tool-call') {
            if (seen.has(p.id)) reused++;
            seen.add(p.id);
          }
      expect(checkInvariants(neutral, { dialect: 'openai' }), name).toEqual([]);
      const fixed = repairMessages(neutral, { dialect: 'anthropic' });
      expect(
        fixed.repairs.every((r) => r.kind === 'renamed-call-id'),
        name,
      ).toBe(true);
      expect(checkInvariants(fixed.messages, { dialect: 'anthropic' }), name).toEqual([]);
    }
    // 56 repeated uses of 54 distinct ids in the open data (the 73 counts a set we could not reproduce).
    expect(reused).toBe(56);
  });

  it('repairs the session that ends on an unanswered call, and reports it', () => {
    const [, t] = all.find(([n]) => n === 'claude-code/general-tool-calls.json')!;
    const neutral = fromOpenAI(t.messages);
    expect(checkInvariants(neutral).map((v) => v.rule)).toContain('call-without-result');
    const { messages, repairs } = repairMessages(neutral, { dialect: 'openai' });
    expect(repairs.some((r) => r.kind === 'synthesized-result')).toBe(true);
    expect(checkInvariants(messages, { dialect: 'openai' })).toEqual([]);
  });
});
