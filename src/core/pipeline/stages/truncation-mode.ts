/**
 * What every arrival truncation mode takes and gives: the tool output, a way to spill it in full, and
 * the text to send with what was spilled. The modes: `default` in `output-truncation-modes.ts`, the seed
 * systems' in `presets/<seed>/output-truncation.ts`.
 */
/** A spilled copy of the full output, or why it could not be written. */
export type SpillOutcome =
  | { ok: true; id: string; location: string; sha256: string; size: number }
  | { ok: false; error: string };

export interface ModeInput {
  text: string;
  isError: boolean;
  toolName: string | undefined;
  /** The call's `path` argument, when it has one (CowAgent's read notice names it). */
  path?: string | undefined;
  /** Writes the full output (once) and says where it went. */
  spill: (text: string) => Promise<SpillOutcome>;
}

export interface ModeOutput {
  text: string;
  changed: boolean;
  spill?: SpillOutcome;
  /** Short description for reports, e.g. `lines 5000→2000`. */
  detail?: string;
}

/** The output as it came. */
export const unchanged = (text: string): ModeOutput => ({ text, changed: false });
