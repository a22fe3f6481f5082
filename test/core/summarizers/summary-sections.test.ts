import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  blockLength,
  empty,
  ORDER,
  render,
  type Sections,
} from '../../../src/core/summarizers/summary-sections.ts';

describe('blockLength', () => {
  it("is the length of the section's rendered block, 0 for an empty section, every section kind", () => {
    const item = fc.string({ unit: fc.constantFrom('a', ' ', ',', '\n', 'é', '中', '😀'), maxLength: 200 });
    fc.assert(
      fc.property(fc.constantFrom(...ORDER), fc.array(item, { maxLength: 40 }), (k, items) => {
        const s: Sections = { ...empty(), [k]: items };
        expect(blockLength(s, k)).toBe(render(s).length);
      }),
      { numRuns: 1000 },
    );
  });
});
