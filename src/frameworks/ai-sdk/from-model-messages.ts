/**
 * AI SDK `ModelMessage` ⇄ ctxkit's neutral `Message`, lossless: approval requests and responses become
 * `tool-approval` parts, `execution-denied` outputs denied results, `content` outputs multi-part
 * results, image files images; files, reasoning files, custom parts, provider-executed calls with their
 * results and approvals, and a response whose request is not in the history pass through as opaque
 * parts. What the neutral model has no field for (`providerOptions`, `providerExecuted`, the exact
 * output, bytes) rides in `provider.framework` and comes back as it was. Reasoning metadata is mapped to
 * the fields the reasoning rules read: Anthropic `signature`/`redactedData` → `signature`/`redacted`,
 * OpenAI `itemId`/`reasoningEncryptedContent` → the Responses item, Google `thoughtSignature` → the
 * Gemini part. Neutral messages that came from elsewhere (a summary, another adapter) are given the
 * AI SDK's `providerOptions` for the same metadata.
 */
import type { ModelMessage } from 'ai';
import {
  CtxError,
  contentText,
  type JsonValue,
  type Message,
  type Part,
  type ProviderData,
  type ResultContentPart,
} from '../../core/index.ts';
import { toJsonSafe } from './json-safe.ts';
import { type Bag, isBag, type ModelPart, opt, outputOf, str } from './options.ts';

function withFramework(provider: ProviderData | undefined, framework: Bag): ProviderData | undefined {
  if (Object.keys(framework).length === 0) return provider;
  return { ...provider, framework };
}

/** Provider data for a part's `providerOptions`: the verified reasoning fields where the rules look. */
function reasoningProvider(po: Bag | undefined, onCall: boolean): ProviderData | undefined {
  const out: ProviderData = {};
  const openai = po?.openai;
  if (!onCall && isBag(openai) && typeof openai.itemId === 'string') {
    const item: Bag = { type: 'reasoning', id: openai.itemId };
    if (typeof openai.reasoningEncryptedContent === 'string')
      item.encrypted_content = openai.reasoningEncryptedContent;
    out.responses = { item };
  }
  const google = isBag(po?.google) ? po.google : isBag(po?.vertex) ? po.vertex : undefined;
  if (google && typeof google.thoughtSignature === 'string')
    out.gemini = { part: { thoughtSignature: google.thoughtSignature } };
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A part the neutral model has no kind for, kept as it came and counted by its JSON. */
function opaque(p: ModelPart | Bag): Part {
  const value = toJsonSafe(p);
  return { type: 'opaque', source: 'ai-sdk', kind: String((value as Bag).type), value };
}

/** Base64 bytes or a URL a file part or file data carries (`{ $bytes }` is what `toJsonSafe` made of bytes). */
function fileSource(data: JsonValue | undefined): { url: string } | { data: string } | undefined {
  if (typeof data === 'string') return /^(https?:|data:)/.test(data) ? { url: data } : { data };
  if (!isBag(data)) return undefined;
  if (typeof data.$url === 'string') return { url: data.$url };
  if (typeof data.$bytes === 'string') return { data: data.$bytes };
  if (data.type === 'url') return fileSource(data.url);
  if (data.type === 'data') return fileSource(data.data);
  return undefined;
}

const isImage = (mediaType: JsonValue | undefined) =>
  typeof mediaType === 'string' && mediaType.startsWith('image/');

/** The parts of a multi-part (`content`) tool output: text and images as such, the rest opaque. */
function resultContent(value: readonly unknown[]): ResultContentPart[] {
  return value.map((raw): ResultContentPart => {
    const v = toJsonSafe(raw) as Bag;
    if (v.type === 'text' && typeof v.text === 'string') return { type: 'text', text: v.text };
    const image =
      v.type === 'image-data' ||
      v.type === 'image-url' ||
      v.type === 'media' ||
      ((v.type === 'file' || v.type === 'file-data' || v.type === 'file-url') && isImage(v.mediaType));
    const source = image ? (fileSource(v.url) ?? fileSource(v.data)) : undefined;
    if (source) {
      const media = str(v.mediaType);
      return { type: 'image', ...source, ...(media?.includes('/') ? { mediaType: media } : {}) };
    }
    return { type: 'opaque', source: 'ai-sdk', kind: String(v.type), value: v };
  });
}

/**
 * A provider-executed call (a hosted web search, an Anthropic server tool, a hosted MCP call), its
 * result in the assistant message and an approval asked for it: the provider's own items, not a
 * function call ctxkit could pair, move or answer. They pass through whole, like a Responses
 * `web_search_call` or an Anthropic `server_tool_use`.
 */
function isHosted(p: ModelPart, role: string, hosted: ReadonlySet<string>): boolean {
  if (p.type === 'tool-call') return p.providerExecuted === true;
  if (p.type === 'tool-result') return role === 'assistant';
  if (p.type === 'tool-approval-request') return hosted.has(p.toolCallId);
  return false;
}

function partToNeutral(p: ModelPart, approvals: Map<string, string>): Part {
  const po = 'providerOptions' in p && p.providerOptions ? (toJsonSafe(p.providerOptions) as Bag) : undefined;
  const fw: Bag = po ? { providerOptions: po } : {};
  switch (p.type) {
    case 'text':
      return { type: 'text', text: p.text, ...opt('provider', withFramework(undefined, fw)) };
    case 'reasoning': {
      const a = isBag(po?.anthropic) ? po.anthropic : undefined;
      const redacted = str(a?.redactedData);
      const signature = redacted ?? str(a?.signature);
      return {
        type: 'reasoning',
        text: p.text,
        ...opt('signature', signature),
        ...(redacted !== undefined ? { redacted: true } : {}),
        ...opt('provider', withFramework(reasoningProvider(po, false), fw)),
      };
    }
    case 'tool-call':
      if (p.providerExecuted !== undefined) fw.providerExecuted = p.providerExecuted;
      return {
        type: 'tool-call',
        id: p.toolCallId,
        name: p.toolName,
        args: toJsonSafe(p.input),
        ...opt('provider', withFramework(reasoningProvider(po, true), fw)),
      };
    case 'tool-result': {
      if (!isBag(p.output as unknown as JsonValue))
        // AI SDK 4 and earlier: `result` instead of `output` (and no prepareStep).
        throw new CtxError(
          'unsupported',
          'ctxkit/ai-sdk needs the AI SDK 5, 6 or 7 (ai@5, @6 or @7): this tool-result has no `output` (an older AI SDK)',
        );
      const { output, isError } = outputOf(p.output);
      // Kept when the neutral output and isError do not say it all: a denial, multi-part content,
      // output-level providerOptions, or a JSON output whose value is a string (it would read as text).
      const o = p.output;
      const derivable =
        o.type === 'text' ||
        o.type === 'error-text' ||
        ((o.type === 'json' || o.type === 'error-json') && typeof o.value !== 'string');
      if (!derivable || o.providerOptions) fw.output = toJsonSafe(o);
      const content = o.type === 'content' ? resultContent(o.value) : undefined;
      return {
        type: 'tool-result',
        callId: p.toolCallId,
        name: p.toolName,
        output: content ? contentText(content) : output,
        ...(content ? { content } : {}),
        ...(isError ? { isError } : {}),
        ...(o.type === 'execution-denied' ? { denied: true } : {}),
        ...opt('provider', withFramework(undefined, fw)),
      };
    }
    case 'image': {
      const img = p.image;
      const base = { type: 'image' as const, ...opt('mediaType', p.mediaType) };
      if (typeof img === 'string' && /^(https?:|data:)/.test(img))
        return { ...base, url: img, ...opt('provider', withFramework(undefined, fw)) };
      if (typeof img === 'string')
        return { ...base, data: img, ...opt('provider', withFramework(undefined, fw)) };
      // URL, bytes or a provider reference: the neutral part points at it (or holds the bytes as
      // base64, counted as an image), the original comes back.
      const value = toJsonSafe(p) as Bag;
      return { ...base, ...fileSource(value.image), provider: { framework: { ...fw, part: value } } };
    }
    case 'tool-approval-request':
      approvals.set(p.approvalId, p.toolCallId);
      return {
        type: 'tool-approval',
        callId: p.toolCallId,
        approvalId: p.approvalId,
        phase: 'request',
        provider: { framework: { part: toJsonSafe(p) } },
      };
    case 'tool-approval-response': {
      const callId = approvals.get(p.approvalId);
      // A response whose request is not in this history (a provider-executed approval: the AI SDK sends
      // the provider the response only) ties to no call here: it passes through whole.
      if (callId === undefined) return opaque(p);
      return {
        type: 'tool-approval',
        callId,
        approvalId: p.approvalId,
        phase: 'response',
        approved: p.approved,
        ...opt('reason', p.reason),
        provider: { framework: { part: toJsonSafe(p) } },
      };
    }
    case 'file': {
      // An image file (the model-call prompt carries images as files) is an image, counted as one;
      // any other file is passed through, counted by its JSON (the bytes it carries).
      const value = toJsonSafe(p) as Bag;
      const source = isImage(p.mediaType) ? fileSource(value.data) : undefined;
      if (!source) return opaque(p);
      return { type: 'image', ...source, mediaType: p.mediaType, provider: { framework: { part: value } } };
    }
  }
  // A reasoning file, a provider's custom part, a part type this version does not know: as it came.
  return opaque(p);
}

/**
 * Neutral messages for `messages`; message `i` gets the id `${idPrefix}${i}` (the AI SDK's messages have
 * none). `content` given as a string is remembered so that it comes back as a string.
 */
export function fromModelMessages(
  messages: readonly ModelMessage[],
  options: { idPrefix?: string } = {},
): Message[] {
  const prefix = options.idPrefix ?? 'm';
  const approvals = new Map<string, string>();
  return messages.map((m, i) => fromModelMessage(m, `${prefix}${i}`, approvals));
}

/** One neutral message for one `ModelMessage`. */
export function fromModelMessage(
  m: ModelMessage,
  id: string,
  /** Approval id → call id of the requests seen so far (a response is tied to its request's call). */
  approvals: Map<string, string> = new Map(),
): Message {
  const fw: Bag = {};
  if (m.providerOptions) fw.providerOptions = toJsonSafe(m.providerOptions);
  let parts: Part[];
  if (typeof m.content === 'string') {
    fw.stringContent = true;
    parts = [{ type: 'text', text: m.content }];
  } else {
    const content = m.content as ModelPart[];
    const hosted = new Set<string>();
    for (const p of content)
      if (p.type === 'tool-call' && p.providerExecuted === true) hosted.add(p.toolCallId);
    parts = content.map((p) => (isHosted(p, m.role, hosted) ? opaque(p) : partToNeutral(p, approvals)));
  }
  return { id, role: m.role, parts, ...opt('provider', withFramework(undefined, fw)) };
}
