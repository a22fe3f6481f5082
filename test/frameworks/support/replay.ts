/**
 * A long real agent session replayed through a framework's agent: the history before one user turn,
 * that turn's prompt, the assistant steps the model took in it (each a tool call) and the outputs the
 * tools returned. The framework's mock model answers step k with the recorded step k and checks every
 * prompt it is sent against the provider's rules. Loaded from ../shared/data (skip when absent).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkInvariants,
  createDeterministicSummarizer,
  type Dialect,
  fromOpenAI,
  type JsonValue,
  type Message,
  type Summarizer,
  type ToolCallPart,
} from '../../../src/core/index.ts';
import { isReasoningOnly, verifiedKey } from '../../../src/core/invariants/reasoning.ts';

export const TRAJECTORIES = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  '..',
  'shared',
  'data',
  'trajectories',
);
export const HAVE_DATA = existsSync(join(TRAJECTORIES, 'claude-code'));
export const NO_DATA = `no trajectories at ${TRAJECTORIES} (see ../shared/data/README.md)`;

export interface Replay {
  name: string;
  /** Everything before the turn's prompt. */
  history: Message[];
  prompt: Message;
  /** The assistant messages of the turn, one per model call (each holds tool calls). */
  steps: Message[];
  /** Recorded output of every call of the turn, by call id. */
  outputs: Map<string, string | JsonValue>;
  tools: string[];
  /** Every message of the trajectory after the prompt (the turn's steps, their results, what followed). */
  rest: Message[];
}

/** The longest Claude Code session, cut at its last user message (after 60+ messages) followed by `minSteps` tool steps. */
export function loadReplay(minSteps = 10): Replay {
  const dir = join(TRAJECTORIES, 'claude-code');
  const file = readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.includes('__'))
    .sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)[0]!;
  const raw = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { messages: unknown[] };
  // Claude Code's own compaction summary stays: it is the user message that opens the replayed turn
  // (the session runs as one turn otherwise). The recorded usage stays, as a framework's history carries it.
  const messages = fromOpenAI(raw.messages, { path: file });
  for (let u = messages.length - 1; u > 0; u--) {
    if (messages[u]!.role !== 'user') continue;
    const steps: Message[] = [];
    const outputs = new Map<string, string | JsonValue>();
    for (let i = u + 1; i < messages.length; i++) {
      const m = messages[i]!;
      if (m.role === 'user') break;
      if (m.role === 'assistant' && steps.length === minSteps) break;
      if (m.role === 'assistant' && m.parts.some((p) => p.type === 'tool-call')) steps.push(m);
      for (const p of m.parts) if (p.type === 'tool-result') outputs.set(p.callId, p.output);
    }
    if (steps.length < minSteps || u < 60) continue;
    const tools = [
      ...new Set(steps.flatMap((s) => s.parts.flatMap((p) => (p.type === 'tool-call' ? [p.name] : [])))),
    ];
    return {
      name: file,
      history: messages.slice(0, u),
      prompt: messages[u]!,
      steps,
      outputs,
      tools,
      rest: messages.slice(u + 1),
    };
  }
  throw new Error(`no user turn with ${minSteps} tool steps in ${file}`);
}

export function calls(step: Message): ToolCallPart[] {
  return step.parts.filter((p): p is ToolCallPart => p.type === 'tool-call');
}

/** Provider-rule violations of one prompt, plus verified reasoning that is not what was recorded. */
export function promptViolations(
  prompt: readonly Message[],
  dialect: Dialect,
  recorded: ReadonlySet<string>,
): string[] {
  const out = checkInvariants(prompt, { dialect }).map((v) => `${v.rule}: ${v.detail}`);
  for (const m of prompt) {
    if (isReasoningOnly(m)) out.push(`reasoning-only message ${m.id}`);
    for (const p of m.parts) {
      const key = verifiedKey(p);
      if (key !== undefined && !recorded.has(key)) out.push(`verified reasoning changed in ${m.id}`);
    }
  }
  return out;
}

export function verifiedKeys(messages: readonly Message[]): Set<string> {
  const keys = new Set<string>();
  for (const m of messages)
    for (const p of m.parts) {
      const k = verifiedKey(p);
      if (k !== undefined) keys.add(k);
    }
  return keys;
}

/** The deterministic summarizer, counting its calls. */
export function countingSummarizer(): Summarizer & { calls: number } {
  const inner = createDeterministicSummarizer();
  const s = {
    name: inner.name,
    calls: 0,
    summarize: (request: Parameters<Summarizer['summarize']>[0]) => {
      s.calls++;
      return inner.summarize(request);
    },
  };
  return s;
}
