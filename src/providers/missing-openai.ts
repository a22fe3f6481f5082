/** The error ctxkit throws when the optional `openai` package cannot be imported. */
import { CtxError } from '../core/index.ts';

/** The package, the install command and the import's own first line, for `feature` (what needs the SDK). */
export function missingOpenAI(feature: string, cause: unknown): CtxError {
  const why = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
  return new CtxError(
    'unsupported',
    `${feature} needs the optional package openai (npm install openai): ${why}`,
    { cause },
  );
}
