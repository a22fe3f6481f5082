/**
 * The `openai` SDK, loaded on first use. `openai` is an optional peer (`>=6.49 <8`): everything else in
 * `ctxkit/providers` (prompts, parsers, retry arithmetic, `withFallback`, the env config) works without
 * it, and only the SDK-backed summarizer and embedder call `loadOpenAI`. The specifier is a literal, so
 * bundlers (wrangler, esbuild) still include the SDK in a Worker that uses them.
 */
import { CtxError } from '../core/index.ts';

/** The `openai` package's module namespace. */
export type OpenAIModule = typeof import('openai');

let loaded: OpenAIModule | undefined;
let loading: Promise<OpenAIModule> | undefined;

/**
 * Imports `openai` once and caches it. When it cannot be imported, throws
 * `CtxError('unsupported')` naming the package and the install command, and tries again next call.
 * @param feature What needs the SDK, for the message (`createOpenAISummarizer`, `openAIEmbedder`).
 */
export function loadOpenAI(feature = 'ctxkit/providers'): Promise<OpenAIModule> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= import('openai').then(
    (sdk) => {
      loaded = sdk;
      return sdk;
    },
    (cause: unknown) => {
      loading = undefined;
      throw missingOpenAI(feature, cause);
    },
  );
  return loading;
}

/** The SDK when some call has loaded it already, else undefined (no import is started). */
export function loadedOpenAI(): OpenAIModule | undefined {
  return loaded;
}

/** The error `loadOpenAI` throws: the package, the install command and the import's own first line. */
export function missingOpenAI(feature: string, cause: unknown): CtxError {
  const why = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
  return new CtxError(
    'unsupported',
    `${feature} needs the optional package openai (npm install openai): ${why}`,
    { cause },
  );
}
