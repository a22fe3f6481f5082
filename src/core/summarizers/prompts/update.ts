/**
 * The iterative part shared by every prompt family: update a previous summary instead of starting
 * from scratch, mark finished work as finished, keep the user's constraints word for word; then the
 * focus instructions of a manual compaction.
 */

/** Text appended to a summarisation request; empty when there is no previous summary and no focus. */
export function updateBlock(previousSummary: string | undefined, instructions: string | undefined): string {
  let out = '';
  if (previousSummary !== undefined && previousSummary.trim() !== '') {
    out +=
      '\n\nA summary of the earlier conversation already exists (in <previous-summary> below). ' +
      'UPDATE it with the new messages instead of summarising from scratch:\n' +
      '- merge the new facts in and keep every part of the previous summary that is still valid;\n' +
      '- record instructions that have been carried out as completed (mark them "Completed:"), ' +
      'so that finished work is not done again;\n' +
      '- keep every constraint or requirement the user stated verbatim, in quotes.\n\n' +
      `<previous-summary>\n${previousSummary.trim()}\n</previous-summary>`;
  }
  if (instructions !== undefined && instructions.trim() !== '') {
    out += `\n\nAdditional focus for this summary: ${instructions.trim()}`;
  }
  return out;
}
