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
 *
 * This file reads; `gemini-out.ts` writes.
 */
import * as z from 'zod/mini';
import { CtxError, formatPath } from '../errors.ts';
import { jsonValueSchema, parseWith } from '../messages/schema.ts';
import { contentText } from '../messages/text.ts';
import type {
  ImagePart,
  JsonValue,
  Message,
  Part,
  ResultContentPart,
  ToolResultPart,
} from '../messages/types.ts';
import { type Bag, bag, without } from './bag.ts';

export * from './gemini-out.ts';

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

export type { GeminiContent, GeminiRequest } from './gemini-types.ts';

export interface FromGeminiOptions {
  /** Prefix of generated message ids (`m` → `m0`, `m1`, …). @default 'm' */
  idPrefix?: string;
}

const DATA_KEYS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse'] as const;

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
