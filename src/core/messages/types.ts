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
  /**
   * Chat Completions: a tool call's keys beside `id`/`type`/`function` (`call`, e.g. Gemini's
   * `extra_content` with its thought signature) and `custom: true` for a custom tool call.
   */
  openai?: { [key: string]: JsonValue };
  responses?: { [key: string]: JsonValue };
  gemini?: { [key: string]: JsonValue };
  /**
   * What an agent framework's message carried that has no neutral field (AI SDK `providerOptions`,
   * approval parts, multi-part tool outputs…), kept by the framework's adapter to rebuild the original.
   */
  framework?: { [key: string]: JsonValue };
}

/**
 * The opaque metadata slot every part and every message has: keys the source carried beside the
 * neutral fields (Anthropic or OpenAI `cache_control`, a framework's provider options…). Never read
 * or changed by a stage; a stage that keeps a part keeps its `extra` as it is, and the adapter of the
 * dialect it came from writes it back.
 */
export type Extra = Record<string, JsonValue>;

export interface TextPart {
  type: 'text';
  text: string;
  extra?: Extra;
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
  extra?: Extra;
  provider?: ProviderData;
}

export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** Anthropic thinking signature, or `redacted` data for a redacted block. */
  signature?: string;
  redacted?: boolean;
  extra?: Extra;
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
  extra?: Extra;
  provider?: ProviderData;
}

export interface ToolResultPart {
  type: 'tool-result';
  callId: string;
  name?: string;
  /** The tool's output: text, or structured JSON (co-cli dict returns). */
  output: string | JsonValue;
  /**
   * The result as content parts, when the tool returned more than text (text and images, files): what
   * the model reads and what counters count (an image as an image, not as base64 text). `output` is
   * then the text of its text parts, joined by newlines, for the stages and summaries that read text.
   * Written out only while `output` still equals that text (`resultContent`): a stage that rewrites
   * `output` (truncation, archiving) turns the result into its new text.
   */
  content?: ResultContentPart[];
  isError?: boolean;
  /** The call was not run: its approval was denied (the call counts as answered; `output` says why). */
  denied?: boolean;
  extra?: Extra;
  provider?: ProviderData;
}

/**
 * Something a dialect sent that has no neutral kind — a file or audio content part, an image by file
 * id, a hosted tool's item (`web_search_call`, `computer_call`, `shell_call`, `apply_patch_call`,
 * `tool_search_call`…), an Agents SDK `compaction` item — kept exactly as it came. Stages keep it
 * intact (they move or drop it whole, never edit it), counters count it by the size of its JSON, and
 * the adapter of `source` writes `value` back byte for byte (others leave it out: no other provider
 * would accept it).
 */
export interface OpaquePart {
  type: 'opaque';
  /** The dialect whose adapter read it and writes it back: `openai`, `responses`, `anthropic`, `gemini`. */
  source: string;
  /** What it is in that dialect (`input_file`, `web_search_call`, `compaction`…): its `type`. */
  kind: string;
  /** The content part or item exactly as it came. */
  value: JsonValue;
  extra?: Extra;
  provider?: ProviderData;
}

/**
 * A tool call's approval (human-in-the-loop, as the AI SDK and the Agents SDK have it): the request
 * rides in the assistant message with its call, the response in the message after it. Pairing ties
 * both to the call: one whose call is gone is dropped by `repairMessages`. A denied call is answered
 * by a result with `denied: true`. No provider API takes these: adapters leave them out.
 */
export interface ToolApprovalPart {
  type: 'tool-approval';
  /** The call it is about. */
  callId: string;
  approvalId: string;
  /** `request`: asked for; `response`: decided (`approved`, and `reason` when given). */
  phase: 'request' | 'response';
  approved?: boolean;
  reason?: string;
  extra?: Extra;
  provider?: ProviderData;
}

/** What a multi-part tool result holds. */
export type ResultContentPart = TextPart | ImagePart | OpaquePart;

export type Part =
  | TextPart
  | ImagePart
  | ReasoningPart
  | ToolCallPart
  | ToolResultPart
  | OpaquePart
  | ToolApprovalPart;
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
  /** The opaque metadata slot (see `Extra`): message-level keys the source carried, kept verbatim. */
  extra?: Extra;
  provider?: ProviderData;
}

/** The providers whose rules `checkInvariants` / `repairMessages` know (neutral: omit the dialect). */
export type Dialect = 'openai' | 'anthropic' | 'responses' | 'gemini';
