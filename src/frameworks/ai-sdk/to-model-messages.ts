/**
 * Neutral `Message` → AI SDK `ModelMessage`: the inverse of `fromModelMessages`. What the framework
 * adapter kept in `provider.framework` comes back as it was, unless a stage changed what it stood for
 * (a truncated tool output becomes a `text` output). Neutral messages from elsewhere get the AI SDK's
 * `providerOptions` for their verified reasoning (Anthropic signatures, OpenAI reasoning items, Gemini
 * thought signatures), so a trajectory recorded in another dialect converts without losing them.
 */
import type { ModelMessage } from 'ai';
import {
  type JsonValue,
  type Message,
  type Part,
  type ResultContentPart,
  resultContent,
} from '../../core/index.ts';
import { fromJsonSafe } from './json-safe.ts';
import { type Bag, isBag, type ModelPart, outputOf, type ToolResultOutput } from './options.ts';

type ContentValue = Extract<ToolResultOutput, { type: 'content' }>['value'][number];

const same = (a: JsonValue, b: JsonValue) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** `providerOptions` for a neutral part that did not come from the AI SDK. */
function derivedOptions(p: Part): Bag | undefined {
  const out: Bag = {};
  if (p.type === 'reasoning' && p.signature !== undefined)
    out.anthropic = p.redacted ? { redactedData: p.signature } : { signature: p.signature };
  const item = p.type === 'reasoning' ? p.provider?.responses?.item : undefined;
  if (isBag(item) && typeof item.id === 'string')
    out.openai = {
      itemId: item.id,
      ...(typeof item.encrypted_content === 'string'
        ? { reasoningEncryptedContent: item.encrypted_content }
        : {}),
    };
  const gemini = p.provider?.gemini?.part;
  if (isBag(gemini) && typeof gemini.thoughtSignature === 'string')
    out.google = { thoughtSignature: gemini.thoughtSignature };
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A `content` output for a multi-part result from elsewhere (another dialect's files left out). */
function contentOutput(parts: readonly ResultContentPart[], isError: boolean): ToolResultOutput | undefined {
  if (isError) return undefined;
  const value = parts.flatMap((c): ContentValue[] => {
    if (c.type === 'text') return [{ type: 'text', text: c.text }];
    if (c.type === 'opaque') return c.source === 'ai-sdk' ? [fromJsonSafe(c.value) as ContentValue] : [];
    const mediaType = c.mediaType ?? 'image/png';
    if (c.url !== undefined) return [{ type: 'image-url', url: c.url }];
    return [{ type: 'image-data', data: c.data ?? '', mediaType }];
  });
  return { type: 'content', value };
}

function toolOutput(
  p: Extract<Part, { type: 'tool-result' }>,
  kept: JsonValue | undefined,
): ToolResultOutput {
  const parts = resultContent(p);
  if (kept !== undefined) {
    const original = fromJsonSafe(kept) as ToolResultOutput;
    // A multi-part output comes back while its parts still stand for the result's text.
    if (original.type === 'content' && parts !== undefined) return original;
    const d = outputOf(original);
    if (same(d.output, p.output) && d.isError === (p.isError ?? false)) return original;
  }
  const output = parts !== undefined ? contentOutput(parts, p.isError === true) : undefined;
  if (output) return output;
  if (p.denied === true && typeof p.output === 'string') {
    const reason = p.output.replace(/^Tool execution denied:?\s*/, '');
    return { type: 'execution-denied', ...(reason !== '' ? { reason } : {}) };
  }
  if (typeof p.output === 'string') return { type: p.isError ? 'error-text' : 'text', value: p.output };
  return { type: p.isError ? 'error-json' : 'json', value: p.output };
}

function partToModel(p: Part, callNames: ReadonlyMap<string, string>): ModelPart | undefined {
  const fw = p.provider?.framework;
  if (fw?.part !== undefined && p.type !== 'image') return fromJsonSafe(fw.part) as ModelPart;
  const po = fw?.providerOptions ?? derivedOptions(p);
  const options = po === undefined ? {} : { providerOptions: fromJsonSafe(po) as Record<string, Bag> };
  switch (p.type) {
    case 'text':
      return { type: 'text', text: p.text, ...options };
    case 'reasoning':
      return { type: 'reasoning', text: p.text, ...options };
    case 'tool-call':
      return {
        type: 'tool-call',
        toolCallId: p.id,
        toolName: p.name,
        input: fromJsonSafe(p.args),
        ...options,
        ...(typeof fw?.providerExecuted === 'boolean' ? { providerExecuted: fw.providerExecuted } : {}),
      };
    case 'tool-result':
      return {
        type: 'tool-result',
        toolCallId: p.callId,
        toolName: p.name ?? callNames.get(p.callId) ?? '',
        output: toolOutput(p, fw?.output),
        ...options,
      };
    case 'image': {
      if (fw?.part !== undefined) return fromJsonSafe(fw.part) as ModelPart;
      const image = p.url ?? (p.data !== undefined && p.mediaType ? p.data : (p.data ?? ''));
      return { type: 'image', image, ...(p.mediaType ? { mediaType: p.mediaType } : {}), ...options };
    }
    case 'tool-approval':
      return (
        p.phase === 'request'
          ? { type: 'tool-approval-request', approvalId: p.approvalId, toolCallId: p.callId }
          : {
              type: 'tool-approval-response',
              approvalId: p.approvalId,
              approved: p.approved === true,
              ...(p.reason !== undefined ? { reason: p.reason } : {}),
            }
      ) as ModelPart;
    case 'opaque':
      // Only what this adapter read comes back; another dialect's item means nothing to the AI SDK
      // (left out, as every adapter leaves out what it cannot express).
      return p.source === 'ai-sdk' ? (fromJsonSafe(p.value) as ModelPart) : undefined;
  }
}

/** One `ModelMessage` for one neutral message (`callNames` names results that carry no tool name). */
export function toModelMessage(m: Message, callNames: ReadonlyMap<string, string> = new Map()): ModelMessage {
  const fw = m.provider?.framework;
  const options =
    fw?.providerOptions === undefined ? {} : { providerOptions: fromJsonSafe(fw.providerOptions) };
  const only = m.parts.length === 1 ? m.parts[0] : undefined;
  if (m.role === 'system' || (fw?.stringContent === true && only?.type === 'text' && !only.provider)) {
    const text = m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    if (m.role !== 'tool') return { role: m.role, content: text, ...options } as ModelMessage;
  }
  const content = m.parts.flatMap((p) => partToModel(p, callNames) ?? []);
  return { role: m.role, content, ...options } as ModelMessage;
}

/** `ModelMessage`s for neutral messages; a result without a tool name takes its call's. */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  const callNames = new Map<string, string>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call') callNames.set(p.id, p.name);
  return messages.map((m) => toModelMessage(m, callNames));
}
