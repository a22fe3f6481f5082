/**
 * OpenAI Responses (`POST {base}/responses`) for the proxy, over the core Responses adapter
 * (`fromResponses` / `toResponses`). The client's system prompt is `instructions` (left in the body
 * as sent) plus the leading system/developer items of `input` (forwarded as sent); both are counted,
 * neither is stored. `previous_response_id` keeps the history at the provider, where ctxkit cannot
 * manage it: such a request is refused with a 400 that says so.
 */
import * as z from 'zod';
import {
  CtxError,
  fromResponses,
  type Message,
  messageText,
  parseWith,
  toResponses,
  usageFromRecord,
} from '../../core/index.ts';
import { wrapAnswer } from './opaque-json.ts';
import {
  type AnswerAccumulator,
  answerUsage,
  copyHeaders,
  type Protocol,
  type ProxyRequest,
} from './protocol.ts';
import { requestModelSchema, requestToolsSchema } from './request-tools.ts';
import { eventJson } from './sse.ts';

const requestSchema = z.looseObject({
  model: requestModelSchema,
  input: z.union([z.string().min(1, 'must not be empty'), z.array(z.unknown()).min(1, 'at least one item')]),
  instructions: z.string().nullish(),
  stream: z.boolean().nullish(),
  tools: requestToolsSchema.nullish(),
  previous_response_id: z.string().nullish(),
});

const PASS_HEADERS = ['openai-organization', 'openai-project', 'openai-beta', 'accept'] as const;
/** Output items the neutral model holds; others (hosted tool calls…) are not logged. */
const KNOWN_OUTPUT = new Set(['message', 'reasoning', 'function_call', 'custom_tool_call']);

function isSystem(raw: unknown): boolean {
  const item = raw as { role?: unknown; type?: unknown } | null;
  return (
    (item?.type === undefined || item.type === 'message') &&
    (item?.role === 'system' || item?.role === 'developer')
  );
}

function inputItems(body: Record<string, unknown>): unknown[] {
  const input = body.input;
  return typeof input === 'string' ? [{ role: 'user', content: input }] : (input as unknown[]);
}

function answerMessage(response: unknown): Message | undefined {
  const r = response as { output?: unknown; usage?: unknown; model?: unknown; status?: unknown } | null;
  if (!r || !Array.isArray(r.output)) return undefined;
  const items = r.output.filter((i) => KNOWN_OUTPUT.has((i as { type?: string })?.type ?? ''));
  if (items.length === 0) return undefined;
  wrapAnswer('responses', { output: items });
  try {
    const message = fromResponses(items, { path: 'output' }).find((m) => m.role === 'assistant');
    if (!message) return undefined;
    if (r.usage && typeof r.usage === 'object') {
      const usage = usageFromRecord(r.usage as Record<string, never>);
      if (usage) {
        if (typeof r.status === 'string') usage.stopReason = r.status;
        message.usage = usage;
      }
    }
    if (typeof r.model === 'string') message.model = r.model;
    return message;
  } catch {
    return undefined;
  }
}

/** The events the log needs; the others (deltas, `partial_image`s of megabytes) are not even parsed. */
const LOGGED_EVENTS = new Set(['response.output_item.done', 'response.completed', 'response.incomplete']);

function accumulator(): AnswerAccumulator {
  let final: unknown;
  const done: unknown[] = [];
  return {
    push(event) {
      if (event.event !== undefined && !LOGGED_EVENTS.has(event.event)) return;
      const e = eventJson(event);
      if (!e) return;
      if (e.type === 'response.output_item.done' && e.item) done.push(e.item);
      if ((e.type === 'response.completed' || e.type === 'response.incomplete') && e.response)
        final = e.response;
    },
    finish() {
      return answerMessage(final ?? { output: done });
    },
    usage: () => answerUsage(final),
  };
}

export const openAIResponses: Protocol = {
  id: 'openai',
  dialect: 'responses',
  path: '/responses',
  listField: 'input',
  parse(body): ProxyRequest {
    const b = parseWith(requestSchema, body, []);
    if (typeof b.previous_response_id === 'string')
      throw new CtxError(
        'invalid_input',
        'keeps the history at the provider, where ctxkit cannot manage it: send the whole conversation as input instead',
        { path: 'previous_response_id' },
      );
    const items = inputItems(b);
    let lead = 0;
    while (lead < items.length && isSystem(items[lead])) lead++;
    const all = fromResponses(items, { path: 'input' });
    const system = [b.instructions ?? '', ...all.slice(0, lead).map((m) => messageText(m))].filter(
      (s) => s !== '',
    );
    return {
      body: b as Record<string, unknown>,
      model: b.model,
      stream: b.stream === true,
      systemText: system.join('\n\n'),
      tools: b.tools ?? undefined,
      messages: all.slice(lead),
    };
  },
  render(request, send, memory) {
    const items = inputItems(request.body);
    const lead: unknown[] = [];
    for (const i of items) {
      if (!isSystem(i)) break;
      lead.push(i);
    }
    const block = memory === '' ? [] : [{ role: 'system', content: memory }];
    return { ...request.body, input: [...lead, ...block, ...toResponses(send)] };
  },
  answer: answerMessage,
  accumulator,
  upstreamHeaders(client, key) {
    const h = new Headers({ 'content-type': 'application/json' });
    if (key) h.set('authorization', `Bearer ${key}`);
    return copyHeaders(client, PASS_HEADERS, h);
  },
};
