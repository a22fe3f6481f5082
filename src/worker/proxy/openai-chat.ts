/**
 * OpenAI Chat Completions (`POST {base}/chat/completions`) for the proxy. The leading system and
 * developer messages are the client's system prompt: forwarded as sent, counted, never stored.
 */
import * as z from 'zod';
import {
  fromOpenAI,
  type JsonValue,
  type Message,
  messageText,
  parseWith,
  toOpenAI,
} from '../../core/index.ts';
import { wrapAnswer } from './opaque-json.ts';
import {
  type AnswerAccumulator,
  copyHeaders,
  type Protocol,
  type ProxyRequest,
  usageOf,
} from './protocol.ts';
import { requestModelSchema, requestToolsSchema } from './request-tools.ts';
import { eventJson } from './sse.ts';

const requestSchema = z.looseObject({
  model: requestModelSchema,
  messages: z.array(z.unknown()).min(1, 'at least one message'),
  stream: z.boolean().nullish(),
  tools: requestToolsSchema.nullish(),
});

const PASS_HEADERS = ['openai-organization', 'openai-project', 'openai-beta', 'accept'] as const;

function isSystem(raw: unknown): boolean {
  const role = (raw as { role?: unknown } | null)?.role;
  return role === 'system' || role === 'developer';
}

function answerMessage(raw: unknown, usage: unknown, model: unknown): Message | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const msg: Record<string, unknown> = { ...(raw as Record<string, unknown>), role: 'assistant' };
  if (usage !== null && typeof usage === 'object') msg.usage = usage;
  if (typeof model === 'string') msg.model = model;
  wrapAnswer('openai', msg);
  try {
    return fromOpenAI([msg])[0];
  } catch {
    return undefined;
  }
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

function accumulator(): AnswerAccumulator {
  let content = '';
  let reasoning = '';
  let refusal = '';
  let sawContent = false;
  let model: unknown;
  let usage: unknown;
  let finish: unknown;
  const calls = new Map<number, PendingCall>();
  return {
    push(event) {
      const chunk = eventJson(event);
      if (!chunk) return;
      if (typeof chunk.model === 'string') model = chunk.model;
      if (chunk.usage && typeof chunk.usage === 'object') usage = chunk.usage;
      const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
      const choice = choices.find((c) => (c as { index?: unknown })?.index === 0) as
        | { delta?: Record<string, unknown>; finish_reason?: unknown }
        | undefined;
      if (!choice) return;
      if (choice.finish_reason) finish = choice.finish_reason;
      const d = choice.delta ?? {};
      if (typeof d.content === 'string') {
        content += d.content;
        sawContent = true;
      }
      if (typeof d.refusal === 'string') refusal += d.refusal;
      const r = d.reasoning_content ?? d.reasoning;
      if (typeof r === 'string') reasoning += r;
      if (Array.isArray(d.tool_calls))
        for (const tc of d.tool_calls as Array<Record<string, unknown>>) {
          const index = typeof tc.index === 'number' ? tc.index : 0;
          const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
          const fn = (tc.function ?? {}) as Record<string, unknown>;
          if (typeof tc.id === 'string') call.id = tc.id;
          if (typeof fn.name === 'string') call.name += fn.name;
          if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
          calls.set(index, call);
        }
    },
    finish() {
      if (!sawContent && calls.size === 0 && refusal === '') return undefined;
      const raw: Record<string, unknown> = { role: 'assistant', content: sawContent ? content : null };
      if (refusal !== '') raw.refusal = refusal;
      if (reasoning !== '') raw.reasoning_content = reasoning;
      if (calls.size > 0)
        raw.tool_calls = [...calls.entries()]
          .sort(([a], [b]) => a - b)
          .map(([, c]) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments },
          }));
      const u =
        usage && typeof usage === 'object' && typeof finish === 'string'
          ? { ...(usage as object), stop_reason: finish }
          : usage;
      return answerMessage(raw, u, model);
    },
    usage: () => usageOf(usage),
  };
}

export const openAIChat: Protocol = {
  id: 'openai',
  dialect: 'openai',
  path: '/chat/completions',
  historyField: 'messages',
  listField: 'messages',
  parse(body, known): ProxyRequest {
    const b = parseWith(requestSchema, body, []);
    let lead = 0;
    while (lead < b.messages.length && isSystem(b.messages[lead])) lead++;
    // Elements the previous call already converted (validated then) are not converted again.
    const reused = known ? Math.min(known.count, b.messages.length) : 0;
    const all =
      reused > 0
        ? [
            ...known!.elements.slice(0, reused).map((e) => e[0]!),
            ...fromOpenAI(b.messages.slice(reused), { path: 'messages', start: reused }),
          ]
        : fromOpenAI(b.messages, { path: 'messages' });
    const systemText = all
      .slice(0, lead)
      .map((m) => messageText(m))
      .join('\n\n');
    return {
      body: b as Record<string, unknown>,
      model: b.model,
      stream: b.stream === true,
      systemText,
      tools: b.tools ?? undefined,
      messages: all.slice(lead),
      converted: all.map((m) => [m]),
    };
  },
  render(request, send, memory) {
    const raw = request.body.messages as unknown[];
    const lead: unknown[] = [];
    for (const m of raw) {
      if (!isSystem(m)) break;
      lead.push(m);
    }
    const block = memory === '' ? [] : [{ role: 'system', content: memory }];
    return { ...request.body, messages: [...lead, ...block, ...toOpenAI(send)] };
  },
  answer(json) {
    const body = json as { choices?: Array<{ index?: number; message?: unknown; finish_reason?: unknown }> };
    const choice = body?.choices?.find((c) => c.index === 0) ?? body?.choices?.[0];
    if (!choice) return undefined;
    const usage = (json as { usage?: Record<string, JsonValue> }).usage;
    const u =
      usage && typeof choice.finish_reason === 'string'
        ? { ...usage, stop_reason: choice.finish_reason }
        : usage;
    return answerMessage(choice.message, u, (json as { model?: unknown }).model);
  },
  accumulator,
  upstreamHeaders(client, key) {
    const h = new Headers({ 'content-type': 'application/json' });
    if (key) h.set('authorization', `Bearer ${key}`);
    return copyHeaders(client, PASS_HEADERS, h);
  },
};
