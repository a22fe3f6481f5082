/**
 * Question forms for the memory-levers harness beside the core's statement query
 * (`statementQuery`, src/core/store/question-forms.ts): the first-person form, where the speaker the
 * question names becomes `I` / `my` (the speaker's own turn), and the aspect query without names.
 */
import { statementOf } from '../../src/core/index.ts';

export { statementOf, withoutNames } from '../../src/core/index.ts';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `Name: statement` with the name turned into `I` / `my`: the speaker's own first-person turn. */
export function firstPersonStatement(question: string, speaker: string): string {
  const name = escapeRegExp(speaker);
  const first = statementOf(question)
    .replace(new RegExp(`\\b${name}['’]s\\b`, 'giu'), 'my')
    .replace(new RegExp(`\\b${name}\\b`, 'giu'), 'I');
  return `${speaker}: ${first}`;
}
