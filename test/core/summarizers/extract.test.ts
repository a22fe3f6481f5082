import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  clip,
  clipLine,
  constraintSentences,
  decisionSentences,
  filePaths,
  identifiers,
  keyArg,
  oneLine,
} from '../../../src/core/summarizers/extract.ts';

describe('filePaths', () => {
  it('finds paths and file names with extensions and skips URLs, versions and member access', () => {
    const text =
      'Edit src/core/a.ts and ./scripts/run.sh, see README.md, C:\\work\\x.txt, https://x.io/y.ts, v1.2.3, Math.max, and/or, packages/core';
    expect(filePaths(text)).toEqual([
      'src/core/a.ts',
      './scripts/run.sh',
      'README.md',
      'C:/work/x.txt',
      'packages/core',
    ]);
  });

  it('lists no encoded data, hashes, word pairs or escape debris as files', () => {
    const signature = 'ErUBCkYIBxgCKkB4mZ3xQ9pL2vT7nR1sKw8/Yh6JcD0fGqA5uE+iO3bN4lM/zXy9Vt2Ps1Qr.Ab';
    const text = `{"signature":"${signature}"} toast/banner read/write commit 3f9a2b7c1d4e5f60a1b2/x.log\\nsee src/app.ts\\n`;
    expect(filePaths(text)).toEqual(['src/app.ts']);
  });
});

describe('identifiers', () => {
  it('finds code spans, calls, camelCase, snake_case and issue numbers', () => {
    const ids = identifiers(
      'Call `createBudget` then parseWith( x ); fix keepRecentBudget and MAX_TOKENS for #123',
    );
    expect(ids).toEqual(expect.arrayContaining(['createBudget', 'keepRecentBudget', 'MAX_TOKENS', '#123']));
  });

  it('reads a JSON-escaped text as decoded: no `nImportant` from a literal \\n before a word', () => {
    const ids = identifiers('Done.\\nImportant: call applyPatch.\\nApply the fix with `npm test`.');
    expect(ids).toContain('applyPatch');
    expect(ids).not.toContain('nImportant');
    expect(ids).not.toContain('nApply');
  });
});

describe('decisionSentences', () => {
  it('keeps sentences with decision phrases only', () => {
    expect(
      decisionSentences('Looking around. The issue is the cache key. We should use zod for the schemas.'),
    ).toEqual(['The issue is the cache key.', 'We should use zod for the schemas.']);
  });

  it('leaves out filler when a decision phrase says nothing of its own', () => {
    // From a real Claude Code session: the first opened every offline summary's "Key Decisions".
    const filler = [
      'Expected — I’ll use that alias in the next edits.',
      "Expected — I'll use that alias in the next edits.",
      'The plan is ready.',
      'Let me fix it by adding an alias:',
      'Let me try a different approach to get the documentation:',
    ];
    expect(decisionSentences(filler.join(' '))).toEqual([]);
    expect(
      decisionSentences(
        'Fixed by using `Sandbox.mode(Repo, {:shared, self()})` instead of `Sandbox.checkout`.',
      ),
    ).toHaveLength(1);
  });
});

describe('constraintSentences', () => {
  it('keeps user sentences with must / never / always / do not verbatim', () => {
    expect(constraintSentences('Fix it. Never touch the lockfile! You must keep tests green.')).toEqual([
      'Never touch the lockfile!',
      'You must keep tests green.',
    ]);
  });
});

describe('keyArg', () => {
  it('prefers path, then command, then the first short string', () => {
    expect(keyArg({ content: 'x', path: 'a.ts' })).toBe('a.ts');
    expect(keyArg({ command: 'npm   test' })).toBe('npm test');
    expect(keyArg({ n: 1 })).toBeUndefined();
  });
});

describe('clip', () => {
  /** The definition: code points, cut to n − 1 plus `…`. */
  const byCodePoints = (text: string, n: number) => {
    const cps = Array.from(text);
    return cps.length <= n ? text : `${cps.slice(0, n - 1).join('')}…`;
  };

  it('equals the code-point definition on long texts, astral characters and cuts inside a pair', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', ' ', 'é', '😀', '中', '\ud800'), maxLength: 60 }),
        fc.integer({ min: -2, max: 40 }),
        (text, n) => {
          expect(clip(text, n)).toBe(byCodePoints(text, n));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('clipLine', () => {
  it('equals clip(oneLine(text), n) on long texts of words, whitespace runs and astral characters', () => {
    const piece = fc.constantFrom('a', 'bc', ' ', '  ', '\n', '\t \n', '😀', 'é', '\ud800');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 400 }).map((xs) => xs.join('')),
        fc.integer({ min: -2, max: 30 }),
        (text, n) => {
          expect(clipLine(text, n)).toBe(clip(oneLine(text), n));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
