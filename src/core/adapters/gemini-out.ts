/**
 * Neutral messages → a Gemini request: the writing half of `gemini.ts` (see there for how contents
 * map to messages). What was kept on the way in (`provider.gemini`) is written back unchanged.
 */
import { resultContent } from '../messages/text.ts';
import type { JsonValue, Message, Part, ResultContentPart, ToolResultPart } from '../messages/types.ts';
import { type Bag, bag } from './bag.ts';
import type { GeminiRequest } from './gemini-types.ts';
import { type SystemOption, withSystem } from './system.ts';

export interface ToGeminiOptions extends SystemOption {
  /**
   * A `thoughtSignature` for function calls that came from another provider (they have none), as
   * Gemini's docs allow when a history is moved to Gemini 3 (e.g. `skip_thought_signature_validator`).
   * Calls from Gemini keep their own. Unset: none is added.
   */
  foreignCallSignature?: string;
}

function dataOf(p: { provider?: Message['provider'] }): Bag {
  return p.provider?.gemini ?? {};
}

/**
 * Converts neutral messages to a Gemini request. Leading system messages become `systemInstruction`;
 * a later one becomes user text (Gemini has no system role in `contents`). Tool messages become
 * `functionResponse` parts of a user content (all results of a model turn in one content); messages
 * from elsewhere merge with the content before them when it has the same role. Reasoning that did not
 * come from Gemini is not sent (Gemini takes only its own thoughts back).
 */
export function toGemini(history: readonly Message[], options: ToGeminiOptions = {}): GeminiRequest {
  const messages = withSystem(history, options.system);
  const request: GeminiRequest = { contents: [] };
  const names = new Map<string, string>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call') names.set(p.id, p.name);
  let i = 0;
  const system: Bag[] = [];
  let systemData: Bag = {};
  for (; i < messages.length && messages[i]!.role === 'system'; i++) {
    const m = messages[i]!;
    if (i === 0) systemData = bag(dataOf(m).systemInstruction);
    for (const p of m.parts) if (p.type === 'text') system.push(partOut(p, names, options));
  }
  if (system.length > 0 || messages[0]?.provider?.gemini?.systemInstruction)
    request.systemInstruction = { ...systemData, parts: system };
  for (; i < messages.length; i++) {
    const m = messages[i]!;
    const role = m.role === 'assistant' ? 'model' : 'user';
    const data = dataOf(m);
    const parts: Bag[] = [];
    for (const p of m.parts) {
      if (p.type === 'reasoning' && !p.provider?.gemini) continue;
      if ((p.type === 'opaque' && p.source !== 'gemini') || p.type === 'tool-approval') continue;
      const out = partOut(p, names, options);
      if (m.role === 'system' && typeof out.text === 'string') out.text = `[System] ${out.text}`;
      parts.push(out);
    }
    const last = request.contents.at(-1);
    const merge = data.continues === true || (data.content === undefined && last?.role === role);
    if (merge && last && last.role === role) last.parts.push(...parts);
    else request.contents.push({ ...bag(data.content), role, parts });
  }
  // `systemInstruction` first, as requests are written.
  return request.systemInstruction ? { systemInstruction: request.systemInstruction, ...request } : request;
}

/** A part as Gemini takes it, keys in the order the API writes them (data field first, then flags). */
function partOut(p: Part, names: Map<string, string>, options: ToGeminiOptions): Bag {
  const data = dataOf(p);
  const extras = bag(data.part);
  const inner = bag(data.inner);
  switch (p.type) {
    case 'text':
      return { text: p.text, ...extras };
    case 'reasoning':
      return { text: p.text, thought: true, ...extras };
    case 'image': {
      if (
        data.fileData === true ||
        (p.data === undefined && p.url !== undefined && !p.url.startsWith('data:'))
      ) {
        const fileData: Bag = p.mediaType === undefined ? {} : { mimeType: p.mediaType };
        fileData.fileUri = p.url ?? '';
        return { fileData: { ...fileData, ...inner }, ...extras };
      }
      let mimeType = p.mediaType ?? 'image/png';
      let payload = p.data ?? '';
      const dataUrl = p.data === undefined ? /^data:([^;,]+)?(?:;base64)?,(.*)$/s.exec(p.url ?? '') : null;
      if (dataUrl) {
        mimeType = dataUrl[1] ?? mimeType;
        payload = dataUrl[2]!;
      }
      return { inlineData: { mimeType, data: payload, ...inner }, ...extras };
    }
    case 'tool-call': {
      // In the API's own order (id, name, args), then what else the call carried.
      const call: Bag = data.noId === true ? {} : { id: p.id };
      call.name = p.name;
      if (!(data.noArgs === true && isEmptyObject(p.args))) call.args = p.args;
      const out: Bag = { functionCall: { ...call, ...inner }, ...extras };
      if (!p.provider?.gemini && options.foreignCallSignature !== undefined)
        out.thoughtSignature = options.foreignCallSignature;
      return out;
    }
    case 'tool-result': {
      // In the API's own order (id, name, response, parts), then what else the response carried.
      const media = responseMedia(p);
      const response: Bag = data.noId === true ? {} : { id: p.callId };
      response.name = p.name ?? names.get(p.callId) ?? 'unknown';
      response.response = media?.response ?? responseOf(p);
      if (media) response.parts = media.parts.map((c) => partOut(c, names, options));
      return { functionResponse: { ...response, ...inner }, ...extras };
    }
    case 'opaque':
      return bag(p.value);
    case 'tool-approval':
      return {}; // left out by toGemini (no provider takes approvals)
  }
}

function isEmptyObject(v: JsonValue): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;
}

/**
 * The `response` and `parts` of a multimodal function response read from Gemini, while its content
 * still stands for `output` (a stage that rewrote the output sends the new text as `result`). Content
 * from other dialects goes as text: only Gemini 3 takes `parts` in a function response.
 */
function responseMedia(p: ToolResultPart): { response: Bag; parts: ResultContentPart[] } | undefined {
  const content = resultContent(p);
  const head = content?.[0];
  if (!content || head?.type !== 'text' || dataOf(head).response !== true) return undefined;
  let response: JsonValue;
  try {
    response = JSON.parse(head.text) as JsonValue;
  } catch {
    return undefined;
  }
  if (response === null || typeof response !== 'object' || Array.isArray(response)) return undefined;
  const parts = content.slice(1).filter((c) => c.type !== 'opaque' || c.source === 'gemini');
  return { response, parts };
}

/** Gemini wants an object: structured output as is, anything else under `result` (or `error`). */
function responseOf(p: ToolResultPart): Bag {
  const o = p.output;
  if (o !== null && typeof o === 'object' && !Array.isArray(o) && !p.isError) return o;
  return p.isError ? { error: o } : { result: o };
}
