/**
 * The provider-neutral message model. Adapters at the edge convert from and to OpenAI Chat Completions,
 * OpenAI Responses, Anthropic Messages and Gemini `contents`; everything inside ctxkit speaks this.
 */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * A tool definition as the request sends it: OpenAI `ChatCompletionTool`, a Responses tool, Anthropic
 * `Tool` (and its server tools), a Gemini `Tool`, or any JSON object. ctxkit only measures it (its JSON
 * text) and digests it, never reads a field, so the type is any object: the SDKs' interfaces, which have
 * no index signature, are accepted as they are, with no dependency on the SDKs and no cast (any JSON value
 * stays accepted, as before).
 */
export type ToolDefinition = object | JsonValue;

/**
 * What a provider sent that has no neutral meaning (item ids, `encrypted_content`, `thoughtSignature`,
 * annotations…), kept under the dialect it belongs to so that its adapter can rebuild the exact input.
 * Opaque to every stage: a stage that rewrites a part keeps it (spread), one that drops a part drops it.
 */
export interface ProviderData {
  responses?: { [key: string]: JsonValue };
  gemini?: { [key: string]: JsonValue };
  /**
   * What an agent framework's message carried that has no neutral field (AI SDK `providerOptions`,
   * approval parts, multi-part tool outputs…), kept by the framework's adapter to rebuild the original.
   */
  framework?: { [key: string]: JsonValue };
}

export interface TextPart {
  type: 'text';
  text: string;
  /** Provider extras that have no neutral meaning (e.g. Anthropic `cache_control`), kept for the round trip. */
  extra?: Record<string, JsonValue>;
  provider?: ProviderData;
}

export interface ImagePart {
  type: 'image';
  /** An http(s) or data: URL, or absent when the image came as base64 `data`. */
  url?: string;
  data?: string;
  mediaType?: string;
  /** OpenAI `detail`. */
  detail?: 'auto' | 'low' | 'high';
  provider?: ProviderData;
}

export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** Anthropic thinking signature, or `redacted` data for a redacted block. */
  signature?: string;
  redacted?: boolean;
  provider?: ProviderData;
}

export interface ToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  /** Parsed JSON arguments (an object for every provider we know). */
  args: JsonValue;
  /**
   * The arguments exactly as the provider serialised them, kept for a byte-exact round trip. Used on
   * the way out only while it still parses to `args`; a stage that rewrites `args` may leave it stale.
   */
  argsText?: string;
  provider?: ProviderData;
}

export interface ToolResultPart {
  type: 'tool-result';
  callId: string;
  name?: string;
  /** The tool's output: text, or structured JSON (co-cli dict returns). */
  output: string | JsonValue;
  isError?: boolean;
  provider?: ProviderData;
}

export type Part = TextPart | ImagePart | ReasoningPart | ToolCallPart | ToolResultPart;
export type PartType = Part['type'];

export interface MessageMeta {
  /** What the message is for: `user`, `assistant`, `tool_result`, `tool_result_archived`, `tool_summary`, `summary`… */
  kind?: string;
  /** Unset → true. `false` → never sent to the model and counted as 0 tokens (003 §5.1). */
  agentVisible?: boolean;
  /** Unset → true. */
  userVisible?: boolean;
  /** Pinned messages survive every stage. */
  pinned?: boolean;
  /** ISO-8601 creation time. */
  createdAt?: string;
  /** Anything else the source carried (e.g. `isCompactSummary`, `isMeta`). */
  [key: string]: JsonValue | undefined;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Provider's total, when it reports one; otherwise input+output+cache. */
  totalTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
  /** `stop`, `tool_use`, `length`, `aborted`, `error`… Aborted/error usages are never used as an anchor. */
  stopReason?: string;
}

export interface Message {
  id: string;
  role: Role;
  parts: Part[];
  meta?: MessageMeta;
  usage?: Usage;
  /** The model that produced an assistant message, when known. */
  model?: string;
  /** OpenAI `name` of a user/assistant message. */
  name?: string;
  provider?: ProviderData;
}

/** The providers whose rules `checkInvariants` / `repairMessages` know (neutral: omit the dialect). */
export type Dialect = 'openai' | 'anthropic' | 'responses' | 'gemini';
