import { describe, expect, it } from 'vitest';
import { spokenDate, statementKey } from '../../../src/core/index.ts';

describe('statementKey', () => {
  it("restates the speaker's I, my and me and the addressee's you in the third person", () => {
    expect(
      statementKey({ speaker: 'Ann', addressee: 'Bo', text: "I'm proud of my sister; you helped me a lot." }),
    ).toBe("Ann: Ann is proud of Ann's sister; Bo helped Ann a lot.");
  });

  it('leaves you alone when the addressee is unknown', () => {
    expect(statementKey({ speaker: 'Ann', text: 'Did you see it?' })).toBe('Ann: Did you see it?');
  });

  it('writes the session date and the dates its relative expressions resolve to', () => {
    expect(statementKey({ speaker: 'Ann', text: 'I adopted a puppy yesterday.', date: '2023-05-08' })).toBe(
      'Ann: Ann adopted a puppy yesterday. (8 May 2023; 7 May 2023)',
    );
  });
});

describe('spokenDate', () => {
  it('spells a date the way conversations and questions do', () => {
    expect(spokenDate('2024-01-04')).toBe('4 January 2024');
  });
});
