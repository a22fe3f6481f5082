/**
 * A compaction's summary asked on the agent's last send (`SummarizeRequest.sent`), as Claude Code asks
 * for its own: the agent's system prompt and messages first, exactly as they were sent — the provider
 * serves them from its prompt cache — then one user message with the instruction. The model reads the
 * conversation whole (no transcript cut at 200 characters a result), and the call pays cache reads for
 * it. The answer is 002's JSON, read as `kosmokratorPrompt`'s.
 */
import { toOpenAI } from '../../adapters/openai.ts';
import { messageText } from '../../messages/text.ts';
import type { Message } from '../../messages/types.ts';
import type { SentPrefix, SummarizeRequest } from '../../ports.ts';
import { KOSMOKRATOR_SYSTEM_PROMPT } from './kosmokrator.ts';
import { parseKosmokratorAnswer } from './parse-answer.ts';
import type { PromptPlan } from './types.ts';
import { updateBlock } from './update.ts';

/** The prompt family of a summary asked on the agent's last send. */
export const CACHED_PREFIX_FAMILY = 'kosmokrator-cached';

/** How the instruction names the last message the summary stands for. */
function describe(m: Message | undefined): string {
  if (!m) return 'the first message';
  const text = messageText(m).replace(/\s+/g, ' ').trim();
  if (text !== '') {
    const runes = Array.from(text);
    const quote = runes.length > 60 ? `${runes.slice(0, 60).join('')}…` : text;
    return `the ${m.role} message that begins "${quote}"`;
  }
  const call = m.parts.find((p) => p.type === 'tool-call');
  if (call) return `the ${m.role} message that calls ${call.name}`;
  return m.parts.some((p) => p.type === 'tool-result') ? 'a tool result' : `a ${m.role} message`;
}

/** The instruction that follows the cached conversation. */
export function cachedPrefixInstruction(sent: SentPrefix, instructions?: string): string {
  const rest = sent.messages.length - sent.upTo;
  const span =
    rest > 0
      ? `the first ${sent.upTo} messages above, from the start through ${describe(sent.messages[sent.upTo - 1])}. The ${rest} message${rest === 1 ? '' : 's'} after them stay${rest === 1 ? 's' : ''} verbatim after your summary: leave ${rest === 1 ? 'it' : 'them'} out`
      : 'every message above';
  return (
    'The conversation above is being compacted. Do not continue the task and do not call a tool. ' +
    `Write the summary a continuation agent will read in place of ${span}. If the conversation starts ` +
    'with a summary of earlier work, carry what is still valid in it into yours, and mark work already ' +
    'done as "Completed:".\n\n' +
    KOSMOKRATOR_SYSTEM_PROMPT +
    updateBlock(undefined, instructions)
  );
}

/** The plan: the agent's last send, then the instruction. */
export function cachedPrefixPrompt(request: SummarizeRequest & { sent: SentPrefix }): PromptPlan {
  const { sent } = request;
  const options = sent.system !== undefined ? { system: sent.system } : {};
  return {
    family: CACHED_PREFIX_FAMILY,
    messages: [
      ...(toOpenAI(sent.messages, options) as unknown as PromptPlan['messages']),
      { role: 'user', content: cachedPrefixInstruction(sent, request.instructions) },
    ],
    parse: parseKosmokratorAnswer,
  };
}
