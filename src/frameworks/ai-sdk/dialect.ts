/**
 * The provider rules a model's prompt must follow, from the AI SDK model: its `provider` field
 * (`anthropic.messages`, `openai.responses`, `openai.chat`, `google.generative-ai`, `google.vertex.chat`…)
 * or, for a gateway model id given as a string, the part before the `/` (`anthropic/claude-…`).
 * Unknown providers get the neutral pairing rules only.
 */
import type { Dialect } from '../../core/index.ts';
import { modelCall } from '../options.ts';

export function dialectOf(model: string | { readonly provider: string } | undefined): Dialect | undefined {
  if (model === undefined) return undefined;
  const provider = (typeof model === 'string' ? (model.split('/')[0] ?? '') : model.provider).toLowerCase();
  if (provider.includes('anthropic')) return 'anthropic';
  if (provider.startsWith('openai.responses') || provider === 'openai') return 'responses';
  if (provider.startsWith('openai') || provider.startsWith('azure')) return 'openai';
  if (provider.startsWith('google') || provider.includes('vertex') || provider.includes('gemini'))
    return 'gemini';
  return undefined;
}

/**
 * What a call to `model` is prepared with: its dialect and its id (`modelId`, or a gateway id string
 * as given), which picks the prompt-cache rules priced (`PrepareInput.model`).
 */
export function callOf(
  model: string | { readonly provider: string; readonly modelId?: string } | undefined,
): { dialect?: Dialect; model?: string } {
  const dialect = dialectOf(model);
  return { ...(dialect ? { dialect } : {}), ...modelCall(model) };
}

/** The text of AI SDK `instructions` (a string, a system message, or a list of them). */
export function instructionsText(
  instructions: string | { content: string } | readonly { content: string }[] | undefined,
): string | undefined {
  if (instructions === undefined) return undefined;
  if (typeof instructions === 'string') return instructions;
  if (Array.isArray(instructions)) return instructions.map((m) => m.content).join('\n\n');
  return (instructions as { content: string }).content;
}
