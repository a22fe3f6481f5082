/**
 * A paid model summarizer, offline, for `ctxcheck bench cache`: it answers with the deterministic
 * summary cut to what the compaction asked for (a model writes at most that), and notes what the call
 * would be billed:
 * - `transcript` (the default of `summarizerFrom` and `createOpenAISummarizer`): the prompt the core
 *   builds for the request, a new prompt billed as plain input;
 * - `cached` (`summarizerFrom(fn, { prefix: 'cached' })`): the agent's last send as the request carries
 *   it — the part that repeats the manager's previous send served from the cache, the rest and the
 *   instruction written — the way the reference's call is priced.
 * The answer is billed at the output price in both.
 */
import {
  buildPrompt,
  cachedPrefixInstruction,
  createDeterministicSummarizer,
  type Message,
  planText,
  type SummarizeRequest,
  type Summarizer,
} from '../../core/index.ts';
import type { SummaryCall } from './ledger.ts';
import type { Sizing } from './references.ts';

/** The sizing of every send, and the exact count of a text (summarizer prompts and answers). */
export interface ExactSizing extends Sizing {
  text(s: string): number;
}

/** Tokens a chat message adds beyond its text (the sizing's own count of a message). */
export const MESSAGE_TOKENS = 4;

export type PaidMode = 'transcript' | 'cached';

/** The manager's previous send, as priced: a key and a size per message. */
export interface LastSend {
  keys: readonly string[];
  sizes: readonly number[];
}

/** Exact tokens of the prompt a model summarizer is sent for `request` on a transcript. */
export function transcriptTokens(request: SummarizeRequest, sizing: ExactSizing): number {
  const { system, prompt } = planText(buildPrompt(request));
  return sizing.text(system) + sizing.text(prompt) + 2 * MESSAGE_TOKENS;
}

/** The call on the agent's last send: what repeats `last` is cached, the rest and the instruction are not. */
function cachedCall(
  request: SummarizeRequest & { sent: NonNullable<SummarizeRequest['sent']> },
  sizing: ExactSizing,
  last: LastSend | undefined,
): Pick<SummaryCall, 'cached' | 'fresh'> {
  const messages: readonly Message[] = request.sent.messages;
  let i = 0;
  let cached = last ? sizing.overhead : 0;
  while (last && i < messages.length && i < last.keys.length && sizing.key(messages[i]!) === last.keys[i]) {
    cached += last.sizes[i]!;
    i++;
  }
  let fresh = last ? 0 : sizing.overhead;
  for (let j = i; j < messages.length; j++) fresh += sizing.tokens(messages[j]!);
  fresh += sizing.text(cachedPrefixInstruction(request.sent, request.instructions)) + MESSAGE_TOKENS;
  return { cached, fresh };
}

export function paidSummarizer(
  mode: PaidMode,
  sizing: ExactSizing,
  calls: SummaryCall[],
  lastSend: () => LastSend | undefined,
): Summarizer {
  const inner = createDeterministicSummarizer();
  const paid: Summarizer = {
    name: `paid-model-${mode}`,
    async summarize(request) {
      const result = await inner.summarize(request);
      const max = request.maxOutputChars;
      const output = sizing.text(max !== undefined ? result.summary.slice(0, max) : result.summary);
      if (mode === 'cached' && request.sent)
        calls.push({
          ...cachedCall({ ...request, sent: request.sent }, sizing, lastSend()),
          output,
          cacheable: true,
        });
      else calls.push({ cached: 0, fresh: transcriptTokens(request, sizing), output, cacheable: false });
      return result;
    },
  };
  if (inner.ahead) paid.ahead = (messages) => inner.ahead!(messages);
  return mode === 'cached' ? { ...paid, prefix: 'cached' } : paid;
}
