/**
 * The texts a call's page shows that no log row holds: the client's system prompt, the block ctxkit
 * injected into it (memories), each tool schema, and the messages ctxkit made and sent (a summary, a
 * digest, the standing instructions). A call record names them by digest (`TextRef`, with their tokens);
 * the texts are kept once each in the session object's storage, content-addressed (the same system
 * prompt and tools come with every call), in pieces of at most `TEXT_PIECE` characters, and counted by
 * the records that name them: the last record that names one takes it along when it goes.
 */
import type { JsonValue, Message, TokenCounter } from '../../core/index.ts';
import { messageContent } from '../../view/context-model.ts';

/** The part of Durable Object storage the texts use (the call log's `CallStorage`). */
export interface TextStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(keys: string[]): Promise<number>;
}

/** A text of a call, by digest, with its size. */
export interface TextRef {
  /** SHA-256 of the text, hex. */
  digest: string;
  tokens: number;
  chars: number;
}

/** What a call sent besides log rows: its prompt's parts and the messages ctxkit made. */
export interface CallTexts {
  prompt?: {
    system?: TextRef;
    /** The block ctxkit injected into the system prompt (memories). */
    injected?: TextRef;
    tools?: Array<TextRef & { name: string }>;
  };
  made?: Array<TextRef & { id: string; role: string; kind?: string }>;
}

/** Characters per stored piece of a text (a storage value stays far below its size limit). */
export const TEXT_PIECE = 100_000;
/** Longest text kept (a larger one keeps its head, and says so in its last line). */
export const MAX_TEXT = 1_000_000;
/** Tool schemas kept per call. */
export const MAX_TOOLS = 200;
/** Messages ctxkit made kept per call. */
export const MAX_MADE = 200;

const textKey = (digest: string, piece: number) => `proxy:text:${digest}:${piece}`;
const COUNTS = 'proxy:text-refs';

async function sha256(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function bounded(text: string): string {
  return text.length <= MAX_TEXT
    ? text
    : `${text.slice(0, MAX_TEXT)}\n[… ${(text.length - MAX_TEXT).toLocaleString('en-US')} more characters not kept]`;
}

/** The texts of one call, by digest, ready to be stored beside its record. */
export class TextBatch {
  readonly texts = new Map<string, string>();
  constructor(private readonly counter: TokenCounter) {}

  async ref(text: string, tokens = this.counter.countText(text)): Promise<TextRef> {
    const kept = bounded(text);
    const digest = await sha256(kept);
    this.texts.set(digest, kept);
    return { digest, tokens, chars: text.length };
  }
}

function toolName(tool: JsonValue, i: number): string {
  if (typeof tool === 'object' && tool !== null && !Array.isArray(tool)) {
    if (typeof tool.name === 'string') return tool.name;
    const fn = tool.function;
    if (typeof fn === 'object' && fn !== null && !Array.isArray(fn) && typeof fn.name === 'string')
      return fn.name;
  }
  return `tool ${i + 1}`;
}

export interface CallTextsInput {
  /** The client's own system prompt. */
  system?: string | undefined;
  /** The block ctxkit appended to it. */
  injected?: string | undefined;
  tools?: readonly JsonValue[] | undefined;
  /** What went out; the messages with no log row are ctxkit's. */
  sent: readonly Message[];
  logged: ReadonlySet<string>;
}

/** A call's texts as refs (the texts themselves in `batch`). */
export async function callTexts(
  input: CallTextsInput,
  batch: TextBatch,
  counter: TokenCounter,
): Promise<CallTexts> {
  const prompt: NonNullable<CallTexts['prompt']> = {};
  if (input.system?.trim()) prompt.system = await batch.ref(input.system);
  if (input.injected?.trim()) prompt.injected = await batch.ref(input.injected);
  if (input.tools && input.tools.length > 0)
    prompt.tools = await Promise.all(
      input.tools.slice(0, MAX_TOOLS).map(async (t, i) => {
        const json = JSON.stringify(t);
        return {
          name: toolName(t, i),
          ...(await batch.ref(JSON.stringify(t, null, 2), counter.countText(json))),
        };
      }),
    );
  const made = await Promise.all(
    input.sent
      .filter((m) => !input.logged.has(m.id))
      .slice(0, MAX_MADE)
      .map(async (m) => ({
        id: m.id,
        role: m.role,
        ...(typeof m.meta?.kind === 'string' ? { kind: m.meta.kind } : {}),
        ...(await batch.ref(messageContent(m), counter.countMessage(m))),
      })),
  );
  return {
    ...(Object.keys(prompt).length > 0 ? { prompt } : {}),
    ...(made.length > 0 ? { made } : {}),
  };
}

/** Every digest a call's texts name. */
export function digestsOf(texts: CallTexts): string[] {
  const p = texts.prompt;
  return [
    ...(p?.system ? [p.system.digest] : []),
    ...(p?.injected ? [p.injected.digest] : []),
    ...(p?.tools ?? []).map((t) => t.digest),
    ...(texts.made ?? []).map((m) => m.digest),
  ];
}

/** The content-addressed texts of the call log, counted by the records that name them. */
export function createTextStore(storage: TextStorage) {
  const counts = async () => (await storage.get<Record<string, number>>(COUNTS)) ?? {};
  return {
    /** Stores the texts a new record names (those not stored yet) and counts its references. */
    async add(digests: readonly string[], texts: ReadonlyMap<string, string>): Promise<void> {
      if (digests.length === 0) return;
      const n = await counts();
      for (const d of new Set(digests)) {
        if (!n[d]) {
          const text = texts.get(d) ?? '';
          const pieces = Math.max(1, Math.ceil(text.length / TEXT_PIECE));
          for (let i = 0; i < pieces; i++)
            await storage.put(textKey(d, i), text.slice(i * TEXT_PIECE, (i + 1) * TEXT_PIECE));
          await storage.put(textKey(d, -1), pieces);
        }
        n[d] = (n[d] ?? 0) + 1;
      }
      await storage.put(COUNTS, n);
    },
    /** Counts off the texts of records that go; a text no record names any more is deleted. */
    async release(digests: readonly string[]): Promise<void> {
      if (digests.length === 0) return;
      const n = await counts();
      const gone: string[] = [];
      for (const d of new Set(digests)) {
        n[d] = (n[d] ?? 1) - 1;
        if (n[d]! <= 0) {
          delete n[d];
          const pieces = (await storage.get<number>(textKey(d, -1))) ?? 0;
          gone.push(textKey(d, -1), ...Array.from({ length: pieces }, (_, i) => textKey(d, i)));
        }
      }
      if (gone.length > 0) await storage.delete(gone);
      await storage.put(COUNTS, n);
    },
    async get(digest: string): Promise<string | undefined> {
      const pieces = await storage.get<number>(textKey(digest, -1));
      if (pieces === undefined) return undefined;
      const parts: string[] = [];
      for (let i = 0; i < pieces; i++) parts.push((await storage.get<string>(textKey(digest, i))) ?? '');
      return parts.join('');
    },
  };
}
