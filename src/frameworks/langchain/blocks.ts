/**
 * LangChain content blocks ⇄ neutral parts. Each block has one canonical neutral part and each part one
 * canonical block; a block the canonical mapping would not give back exactly (extra keys, a
 * provider-specific shape) is kept whole in the part's `provider.framework.block` and comes back as it
 * was while the part still says what the block said.
 */
import type { JsonValue, Part } from '../../core/index.ts';

export type Bag = { [key: string]: JsonValue };
export type Block = Bag & { type: string };

export const isBag = (v: unknown): v is Bag => typeof v === 'object' && v !== null && !Array.isArray(v);
export const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** A JSON copy (LangChain messages are JSON: the checkpointer serialises them). */
export function json<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function imageOf(b: Block): Part | undefined {
  if (b.type === 'image_url') {
    const iu = b.image_url;
    const url = typeof iu === 'string' ? iu : isBag(iu) && typeof iu.url === 'string' ? iu.url : undefined;
    if (url === undefined) return undefined;
    const detail = isBag(iu) ? iu.detail : undefined;
    return {
      type: 'image',
      url,
      ...(detail === 'auto' || detail === 'low' || detail === 'high' ? { detail } : {}),
    };
  }
  if (b.type === 'image') {
    const mediaType = typeof b.mimeType === 'string' ? b.mimeType : undefined;
    const m = mediaType ? { mediaType } : {};
    if (typeof b.url === 'string') return { type: 'image', url: b.url, ...m };
    if (typeof b.data === 'string') return { type: 'image', data: b.data, ...m };
  }
  return undefined;
}

/** The canonical part for a block, without provider data. */
function canonicalPart(b: Block): Part {
  const text = (v: JsonValue | undefined) => (typeof v === 'string' ? v : '');
  switch (b.type) {
    case 'text': {
      const { type: _, text: t, ...extra } = b;
      return { type: 'text', text: text(t), ...(Object.keys(extra).length > 0 ? { extra } : {}) };
    }
    case 'thinking':
      return {
        type: 'reasoning',
        text: text(b.thinking),
        ...(typeof b.signature === 'string' ? { signature: b.signature } : {}),
      };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', signature: text(b.data), redacted: true };
    case 'reasoning':
      return { type: 'reasoning', text: text(b.reasoning) };
    case 'tool_use':
      return { type: 'tool-call', id: text(b.id), name: text(b.name), args: b.input ?? {} };
  }
  // Any other block (a file, a document, a provider's own block) is carried as it is and counted by its JSON.
  return imageOf(b) ?? { type: 'opaque', source: 'langchain', kind: b.type, value: json(b) };
}

/**
 * The canonical block for a part (tool calls become Anthropic `tool_use` blocks). Undefined for what
 * LangChain has no block for and no model should read as text: an approval, another dialect's opaque
 * part (left out as the provider adapters leave them out; `toLangChainMessages` keeps them in its stash).
 */
export function canonicalBlock(p: Part): Block | undefined {
  switch (p.type) {
    case 'text':
      return { type: 'text', text: p.text, ...p.extra };
    case 'reasoning':
      if (p.redacted) return { type: 'redacted_thinking', data: p.signature ?? '' };
      if (p.signature !== undefined) return { type: 'thinking', thinking: p.text, signature: p.signature };
      return { type: 'reasoning', reasoning: p.text };
    case 'tool-call':
      return { type: 'tool_use', id: p.id, name: p.name, input: p.args };
    case 'image':
      if (p.url !== undefined)
        return { type: 'image_url', image_url: { url: p.url, ...(p.detail ? { detail: p.detail } : {}) } };
      return { type: 'image', data: p.data ?? '', ...(p.mediaType ? { mimeType: p.mediaType } : {}) };
    case 'tool-result':
      return { type: 'text', text: typeof p.output === 'string' ? p.output : JSON.stringify(p.output) };
    case 'tool-approval':
      return undefined;
    case 'opaque':
      return p.source === 'langchain' && isBag(p.value) && typeof p.value.type === 'string'
        ? (json(p.value) as Block)
        : undefined;
  }
}

/** What a part says, without what rides along (provider data, argsText): the unchanged-part test. */
export function said(p: Part): JsonValue {
  const { provider: _, ...rest } = p as Part & { argsText?: string };
  delete (rest as { argsText?: string }).argsText;
  return rest as unknown as JsonValue;
}

/** A block as a neutral part; the block is kept when the canonical mapping would not rebuild it. */
export function blockToPart(block: unknown): Part {
  const b: Block = isBag(block) && typeof block.type === 'string' ? (block as Block) : { type: 'unknown' };
  const part = canonicalPart(b);
  if (same(canonicalBlock(part), block)) return part;
  return { ...part, provider: { framework: { block: json(block) as JsonValue } } };
}

/** A part as a block: the kept original while the part still says what it said, else the canonical block. */
export function partToBlock(p: Part): Block | undefined {
  const kept = p.provider?.framework?.block;
  if (isBag(kept) && typeof kept.type === 'string' && same(said(canonicalPart(kept as Block)), said(p)))
    return json(kept) as Block;
  return canonicalBlock(p);
}
