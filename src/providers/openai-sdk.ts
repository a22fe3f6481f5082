/**
 * The `openai` SDK, loaded on first use. `openai` is an optional peer (`>=6.49 <8`): everything else in
 * `ctxkit/providers` (prompts, parsers, retry arithmetic, `withFallback`, the env config) works without
 * it, and only the SDK-backed summarizer and embedder load it. The module is typed with the parts ctxkit
 * uses (`OpenAIModule`, ./sdk-types.ts), so these declarations compile without `openai`; import
 * `openai` yourself for the rest of it.
 */
import { loadedSdk, loadSdk } from './openai-loader.ts';
import type { OpenAIModule } from './sdk-types.ts';

export { missingOpenAI } from './missing-openai.ts';

/**
 * Imports `openai` once and caches it. When it cannot be imported, throws
 * `CtxError('unsupported')` naming the package and the install command, and tries again next call.
 * @param feature What needs the SDK, for the message (`createOpenAISummarizer`, `openAIEmbedder`).
 */
export function loadOpenAI(feature = 'ctxkit/providers'): Promise<OpenAIModule> {
  return loadSdk(feature);
}

/** The SDK when some call has loaded it already, else undefined (no import is started). */
export function loadedOpenAI(): OpenAIModule | undefined {
  return loadedSdk();
}
