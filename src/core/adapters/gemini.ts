/**
 * Gemini `generateContent` requests (`{ systemInstruction?, contents }`) ⇄ neutral messages, lossless
 * on the round trip.
 *
 * - A `model` content is an assistant message; a `user` content is a user message, and its
 *   `functionResponse` parts are a `tool` message (a content mixing both becomes one message per run
 *   of parts, the later ones marked `continues`, and the way back merges them again).
 * - `thought: true` text parts are reasoning parts. `thoughtSignature` stays on the part it came on
 *   (`provider.gemini.part`), never read or changed: Gemini 3 rejects a function call sent back
 *   without the signature it came with.
 * - `functionCall` / `functionResponse` keep their `id` when they have one; without one (Gemini 2.x)
 *   a response is paired with the first unanswered call of the same name in the model turn before it,
 *   and both get a generated id that is not sent back.
 */
import * as z from 'zod/mini';
import { CtxError, formatPath } from '../errors.ts';
import { jsonValueSchema, parseWith } from '../messages/schema.ts';
import { contentText, resultContent } from '../messages/text.ts';
import type {
  ImagePart,
  JsonValue,
  Message,
  Part,
  ResultContentPart,
  ToolResultPart,
} from '../messages/types.ts';
import { type SystemOption, withSystem } from './system.ts';

type Bag = { [key: string]: JsonValue };

const rest = jsonValueSchema;
const partSchema = z.catchall(
  z.object({
    text: z.optional(z.string()),
    thought: z.optional(z.boolean()),
    inlineData: z.optional(
      z.catchall(
        z.object({ mimeType: z.string().check(z.minLength(1)), data: z.string().check(z.minLength(1)) }),
        rest,
      ),
    ),
    fileData: z.optional(
      z.catchall(
        z.object({ mimeType: z.optional(z.string()), fileUri: z.string().check(z.minLength(1)) }),
        rest,
      ),
    ),
    functionCall: z.optional(
      z.catchall(
        z.object({
          id: z.optional(z.string().check(z.minLength(1))),
          name: z.string().check(z.minLength(1)),
          args: z.optional(z.record(z.string(), rest)),
        }),
        rest,
      ),
    ),
    functionResponse: z.optional(
      z.catchall(
        z.object({
          id: z.optional(z.string().check(z.minLength(1))),
          name: z.string().check(z.minLength(1)),
          response: z.record(z.string(), rest),
        }),
        rest,
      ),
    ),
  }),
  rest,
);
const contentSchema = z.catchall(
  z.object({
    role: z.enum(['user', 'model'], { error: () => 'role must be user or model' }),
    parts: z.array(z.unknown()),
  }),
  rest,
);
const systemSchema = z.catchall(
  z.object({ role: z.optional(z.string()), parts: z.array(z.unknown()) }),
  rest,
);
const requestSchema = z.catchall(
  z.object({ systemInstruction: z.optional(systemSchema), contents: z.array(z.unknown()) }),
  rest,
);

export interface GeminiContent {
  role: 'user' | 'model';
  parts: Bag[];
  [key: string]: JsonValue;
}

export interface GeminiRequest {
  systemInstruction?: { parts: Bag[]; [key: string]: JsonValue };
  contents: GeminiContent[];
}

export interface FromGeminiOptions {
  /** Prefix of generated message ids (`m` → `m0`, `m1`, …). @default 'm' */
  idPrefix?: string;
}

const DATA_KEYS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse'] as const;

function without(obj: Bag, ...keys: string[]): Bag {
  const out: Bag = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined && !keys.includes(k)) out[k] = v;
  return out;
}

/** Part fields that have no neutral meaning (`thoughtSignature`, `thought`, `videoMetadata`…). */
function partExtras(raw: Bag, key: string): Bag | undefined {
  const extras = without(raw, key);
  return Object.keys(extras).length > 0 ? extras : undefined;
}

/** The first field of a part that is not one of Gemini's part-level flags: what the part is. */
function opaqueKind(raw: Bag): string {
  return Object.keys(raw).find((k) => !['thought', 'thoughtSignature', 'partMetadata'].includes(k)) ?? 'part';
}

function isImage(mime: string | undefined): boolean {
  return mime === undefined || mime.startsWith('image/');
}

/** Converts a Gemini request to neutral messages; throws `CtxError('invalid_input')` naming the path. */
export function fromGemini(input: unknown, options: FromGeminiOptions = {}): Message[] {
  const prefix = options.idPrefix ?? 'm';
  const request = parseWith(requestSchema, input, []);
  const out: Message[] = [];
  let n = 0;
  const nextId = () => `${prefix}${n++}`;
  if (request.systemInstruction) {
    const sys = request.systemInstruction;
    const parts = sys.parts.map((raw, pi) => {
      const path = ['systemInstruction', 'parts', pi];
      const part = readPart(raw, path);
      if (part.type !== 'text')
        throw new CtxError('invalid_input', 'systemInstruction takes text parts only', {
          path: formatPath(path),
        });
      return part;
    });
    out.push({
      id: nextId(),
      role: 'system',
      parts,
      provider: { gemini: { systemInstruction: without(sys as Bag, 'parts') } },
    });
  }
  let lastCalls: Array<{ id: string; name: string; answered: boolean }> = [];
  request.contents.forEach((rawContent, ci) => {
    const content = parseWith(contentSchema, rawContent, ['contents', ci]);
    const contentData = without(content as Bag, 'role', 'parts');
    const messages: Message[] = [];
    const start = (role: Message['role']): Message => {
      const m: Message = { id: nextId(), role, parts: [] };
      m.provider = { gemini: messages.length === 0 ? { content: contentData } : { continues: true } };
      if (role === 'tool') m.meta = { kind: 'tool_result' };
      messages.push(m);
      return m;
    };
    const calls: typeof lastCalls = [];
    content.parts.forEach((raw, pi) => {
      const path = ['contents', ci, 'parts', pi];
      const part = readPart(raw, path);
      if (content.role === 'model') {
        if (part.type === 'tool-result')
          throw new CtxError('invalid_input', 'functionResponse parts belong in user contents', {
            path: formatPath(path),
          });
        if (part.type === 'tool-call') {
          if (part.id === '') {
            part.id = `gemini_${ci}_${pi}`;
            part.provider!.gemini!.noId = true;
          }
          calls.push({ id: part.id, name: part.name, answered: false });
        }
      } else if (part.type === 'tool-call')
        throw new CtxError('invalid_input', 'functionCall parts belong in model contents', {
          path: formatPath(path),
        });
      else if (part.type === 'tool-result' && part.callId === '') {
        const call = lastCalls.find((c) => !c.answered && c.name === part.name);
        if (call) call.answered = true;
        part.callId = call?.id ?? `gemini_${ci}_${pi}`;
        part.provider!.gemini!.noId = true;
      }
      const role: Message['role'] =
        content.role === 'model' ? 'assistant' : part.type === 'tool-result' ? 'tool' : 'user';
      const current = messages.at(-1);
      (current && current.role === role ? current : start(role)).parts.push(part);
    });
    if (messages.length === 0) start(content.role === 'model' ? 'assistant' : 'user');
    if (content.role === 'model') lastCalls = calls;
    out.push(...messages);
  });
  return out;
}

function readPart(raw: unknown, path: PropertyKey[]): Part {
  const p = parseWith(partSchema, raw, path);
  const keys = DATA_KEYS.filter((k) => p[k] !== undefined);
  if (keys.length > 1)
    throw new CtxError('invalid_input', `a part holds one of ${keys.join(', ')}, not several`, {
      path: formatPath(path),
    });
  const key = keys[0];
  // What has no neutral kind (a PDF or audio blob, executableCode, codeExecutionResult…) passes as it came.
  const media = key === 'inlineData' || key === 'fileData' ? (p.inlineData ?? p.fileData)! : undefined;
  if (key === undefined || (media && !isImage(media.mimeType)))
    return { type: 'opaque', source: 'gemini', kind: key ?? opaqueKind(p as Bag), value: raw as JsonValue };
  const extras = partExtras(p as Bag, key);
  const gemini: Bag = extras ? { part: extras } : {};
  let part: Part;
  switch (key) {
    case 'text':
      part = p.thought === true ? { type: 'reasoning', text: p.text! } : { type: 'text', text: p.text! };
      break;
    case 'inlineData':
    case 'fileData': {
      const d = (p.inlineData ?? p.fileData)!;
      const img: ImagePart =
        key === 'inlineData'
          ? { type: 'image', data: p.inlineData!.data }
          : { type: 'image', url: p.fileData!.fileUri };
      if (d.mimeType !== undefined) img.mediaType = d.mimeType;
      const more = without(d as Bag, 'mimeType', 'data', 'fileUri');
      if (Object.keys(more).length > 0) gemini.inner = more;
      if (key === 'fileData') gemini.fileData = true;
      part = img;
      break;
    }
    case 'functionCall': {
      const c = p.functionCall!;
      part = { type: 'tool-call', id: c.id ?? '', name: c.name, args: (c.args ?? {}) as JsonValue };
      if (c.args === undefined) gemini.noArgs = true;
      const more = without(c as Bag, 'id', 'name', 'args');
      if (Object.keys(more).length > 0) gemini.inner = more;
      break;
    }
    case 'functionResponse': {
      const r = p.functionResponse!;
      const result: ToolResultPart = {
        type: 'tool-result',
        callId: r.id ?? '',
        name: r.name,
        output: r.response as JsonValue,
      };
      const media = r.parts;
      const multi = Array.isArray(media) && media.length > 0;
      if (multi) {
        // Gemini 3's multimodal response: `response` as a text part, then each of `parts` (an image
        // as an image, a PDF or other data as an opaque part); `output` is the response's JSON text.
        result.content = [
          { type: 'text', text: JSON.stringify(r.response), provider: { gemini: { response: true } } },
          ...media.map((m, k) => responsePart(m, [...path, 'functionResponse', 'parts', k])),
        ];
        result.output = contentText(result.content);
      }
      part = result;
      const more = without(r as Bag, 'id', 'name', 'response', ...(multi ? ['parts'] : []));
      if (Object.keys(more).length > 0) gemini.inner = more;
      break;
    }
  }
  part!.provider = { gemini };
  return part!;
}

/** One of a function response's `parts`: an image part, or anything else passed through. */
function responsePart(raw: JsonValue, path: PropertyKey[]): ResultContentPart {
  const part = readPart(raw, path);
  return part.type === 'image' || part.type === 'opaque'
    ? part
    : { type: 'opaque', source: 'gemini', kind: opaqueKind(bag(raw)), value: raw };
}

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

function bag(v: JsonValue | undefined): Bag {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
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
