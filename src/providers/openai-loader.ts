/**
 * The `openai` SDK, loaded on first use, with the SDK's own types — for ctxkit's code only: this file is
 * not exported from `ctxkit/providers` and no public declaration names it, so the package's types do
 * not need `openai` installed (./sdk-types.ts has the public shapes, ./openai-sdk.ts the public loader).
 * The specifier is a literal, so bundlers (wrangler, esbuild) still include the SDK in a Worker that
 * uses it.
 */
import { missingOpenAI } from './missing-openai.ts';

/** The `openai` package's module namespace. */
export type Sdk = typeof import('openai');

let loaded: Sdk | undefined;
let loading: Promise<Sdk> | undefined;

/**
 * Imports `openai` once and caches it. When it cannot be imported, throws `CtxError('unsupported')`
 * naming the package and the install command, and tries again next call.
 * @param feature What needs the SDK, for the message (`createOpenAISummarizer`, `openAIEmbedder`).
 */
export function loadSdk(feature: string): Promise<Sdk> {
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
export function loadedSdk(): Sdk | undefined {
  return loaded;
}
