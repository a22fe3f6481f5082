/**
 * What `toOpenAI()` and `toAnthropic()` produce, as structural types: each is assignable to the
 * official SDKs' request types (`ChatCompletionMessageParam[]` of `openai`, `MessageCreateParams`'
 * `messages` / `system` of `@anthropic-ai/sdk`) without ctxkit depending on either SDK. The consumer
 * test (test/package/consumer.test.ts) compiles a typed call of each SDK with these, with no cast.
 * Type aliases, not interfaces, so that they stay assignable to JSON records. Only the fields the SDKs
 * know are typed; the trajectory extras (`toOpenAI(…, { trajectory: true })`)
 * and provider extras kept on text blocks (`cache_control`, `citations`) ride along untyped.
 */
import type { JsonValue } from '../messages/types.ts';

export type OpenAITextPart = {
  type: 'text';
  text: string;
};

export type OpenAIImagePart = {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
};

export type OpenAIToolCall =
  | { id: string; type: 'function'; function: { name: string; arguments: string } }
  | { id: string; type: 'custom'; custom: { name: string; input: string } };

/** The trajectory format's extras (only with `trajectory: true`). */
type TrajectoryExtras = {
  model?: string;
  meta?: Record<string, JsonValue>;
  usage?: Record<string, JsonValue>;
};

export type OpenAISystemMessageOut = TrajectoryExtras & {
  role: 'system';
  content: string | OpenAITextPart[];
  name?: string;
};

export type OpenAIDeveloperMessageOut = TrajectoryExtras & {
  role: 'developer';
  content: string | OpenAITextPart[];
  name?: string;
};

export type OpenAIUserMessageOut = TrajectoryExtras & {
  role: 'user';
  content: string | Array<OpenAITextPart | OpenAIImagePart>;
  name?: string;
};

export type OpenAIAssistantMessageOut = TrajectoryExtras & {
  role: 'assistant';
  content: string | null;
  tool_calls?: OpenAIToolCall[];
  refusal?: string;
  name?: string;
  /** With `trajectory: true`. */
  reasoning?: string;
};

export type OpenAIToolMessageOut = TrajectoryExtras & {
  role: 'tool';
  tool_call_id: string;
  content: string;
  name?: string;
};

/** One OpenAI Chat Completions message as `toOpenAI()` writes it. */
export type OpenAIMessageOut =
  | OpenAISystemMessageOut
  | OpenAIDeveloperMessageOut
  | OpenAIUserMessageOut
  | OpenAIAssistantMessageOut
  | OpenAIToolMessageOut;

/** A prompt-cache breakpoint (`toAnthropic` places them; anthropic-cache.ts). */
export type AnthropicCacheControlOut = { type: 'ephemeral'; ttl?: '5m' | '1h' };

export type AnthropicTextBlockOut = {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControlOut;
};

export type AnthropicImageBlockOut = {
  type: 'image';
  cache_control?: AnthropicCacheControlOut;
  source:
    | { type: 'base64'; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; data: string }
    | { type: 'url'; url: string };
};

export type AnthropicThinkingBlockOut = {
  type: 'thinking';
  thinking: string;
  /** Always present: `toAnthropic` leaves out reasoning without a signature. */
  signature: string;
};

export type AnthropicRedactedThinkingBlockOut = {
  type: 'redacted_thinking';
  data: string;
};

export type AnthropicToolUseBlockOut = {
  type: 'tool_use';
  id: string;
  name: string;
  input: JsonValue;
  cache_control?: AnthropicCacheControlOut;
};

export type AnthropicToolResultBlockOut = {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<AnthropicTextBlockOut | AnthropicImageBlockOut>;
  is_error?: boolean;
  cache_control?: AnthropicCacheControlOut;
};

/** One Anthropic content block as `toAnthropic()` writes it. */
export type AnthropicBlockOut =
  | AnthropicTextBlockOut
  | AnthropicImageBlockOut
  | AnthropicThinkingBlockOut
  | AnthropicRedactedThinkingBlockOut
  | AnthropicToolUseBlockOut
  | AnthropicToolResultBlockOut;

export type AnthropicMessageOut = {
  role: 'user' | 'assistant';
  content: string | AnthropicBlockOut[];
};
