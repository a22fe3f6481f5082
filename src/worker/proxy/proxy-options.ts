/**
 * The proxy's request headers: which session, and for a new one which preset and window. Bad
 * values are 400s naming the header.
 */
import { CtxError } from '../../core/index.ts';
import { ID_PATTERN } from '../http/context.ts';
import { PRESETS, type PresetId } from '../session/settings.ts';
import { knownWindow } from './model-windows.ts';

/** Smallest and largest accepted `x-ctxkit-window`. */
export const WINDOW_BOUNDS = { min: 1024, max: 10_000_000 } as const;

export interface ProxyOptions {
  session: string | undefined;
  preset: PresetId | undefined;
  /** From `x-ctxkit-window`, else the model's known window, else the preset's default. */
  window: number | undefined;
  /**
   * `x-ctxkit-memory`, for a session the proxy creates: which stored memories its system prompt may
   * get (`memory.memories`). A drop-in call sends what the client sent: @default 'own' (only what
   * ctxkit extracted in this session, shown on the call page)
   */
  memory: MemoryChoice;
  /** `x-ctxkit-tools` is on: the session keeps a recall archive (created so, or turned on). */
  recall?: boolean;
}

export const MEMORY_CHOICES = ['own', 'shared', 'off'] as const;
export type MemoryChoice = (typeof MEMORY_CHOICES)[number];

export function proxyOptions(headers: Headers, model: string): ProxyOptions {
  const session = headers.get('x-ctxkit-session') ?? undefined;
  if (session !== undefined && !ID_PATTERN.test(session))
    throw new CtxError('invalid_input', 'must be 1–128 characters of [A-Za-z0-9._-], starting alphanumeric', {
      path: 'headers.x-ctxkit-session',
    });
  const preset = headers.get('x-ctxkit-preset') ?? undefined;
  if (preset !== undefined && !PRESETS.includes(preset as PresetId))
    throw new CtxError('invalid_input', `must be one of ${PRESETS.join(', ')}`, {
      path: 'headers.x-ctxkit-preset',
    });
  const rawWindow = headers.get('x-ctxkit-window') ?? undefined;
  let window: number | undefined;
  if (rawWindow !== undefined) {
    window = /^\d{1,9}$/.test(rawWindow) ? Number(rawWindow) : Number.NaN;
    if (!(window >= WINDOW_BOUNDS.min && window <= WINDOW_BOUNDS.max))
      throw new CtxError(
        'invalid_input',
        `must be an integer from ${WINDOW_BOUNDS.min} to ${WINDOW_BOUNDS.max} (tokens)`,
        { path: 'headers.x-ctxkit-window' },
      );
  }
  const memory = headers.get('x-ctxkit-memory') ?? 'own';
  if (!MEMORY_CHOICES.includes(memory as MemoryChoice))
    throw new CtxError('invalid_input', `must be one of ${MEMORY_CHOICES.join(', ')}`, {
      path: 'headers.x-ctxkit-memory',
    });
  return {
    session,
    preset: preset as PresetId | undefined,
    window: window ?? knownWindow(model),
    memory: memory as MemoryChoice,
  };
}
