/**
 * Context windows of well-known models, for a proxy session created without `x-ctxkit-window`.
 * Longest matching prefix wins; an unknown model leaves the preset's own default (200K tokens).
 */

/** Sorted longest prefix first at lookup time. Values are the providers' published input windows. */
export const MODEL_WINDOWS: Readonly<Record<string, number>> = {
  'gpt-3.5-turbo': 16_385,
  'gpt-4': 8_192,
  'gpt-4-32k': 32_768,
  'gpt-4-turbo': 128_000,
  'gpt-4o': 128_000,
  'gpt-4.1': 1_047_576,
  'gpt-4.5': 128_000,
  'gpt-5': 400_000,
  o1: 200_000,
  'o1-mini': 128_000,
  o3: 200_000,
  'o3-mini': 200_000,
  'o4-mini': 200_000,
  'claude-': 200_000,
};

const PREFIXES = Object.keys(MODEL_WINDOWS).sort((a, b) => b.length - a.length);

export function knownWindow(model: string): number | undefined {
  const name = model.toLowerCase().replace(/^.*\//, '');
  for (const p of PREFIXES)
    if (name === p || name.startsWith(p.endsWith('-') ? p : `${p}-`) || name.startsWith(`${p}.`))
      return MODEL_WINDOWS[p];
  return undefined;
}
