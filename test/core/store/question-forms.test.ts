import { describe, expect, it } from 'vitest';
import { asksForSeveral, statementQuery } from '../../../src/core/index.ts';

describe('statementQuery', () => {
  it('drops the wh-word and its auxiliary and moves the one named speaker to the prefix', () => {
    expect(statementQuery('What activities does Melanie partake in?', 'Melanie')).toBe(
      'Melanie: activities partake in',
    );
    expect(statementQuery("Where did Ann's sister move?", 'Ann')).toBe('Ann: sister move');
  });

  it('keeps the bare statement when no single speaker is named', () => {
    expect(statementQuery('How many times has the team won?')).toBe('times the team won');
    expect(statementQuery('Tell me about the trip')).toBe('Tell me about the trip');
  });
});

describe('asksForSeveral', () => {
  it.each([
    'What activities does Melanie partake in?',
    'Which cities has Jon visited?',
    'What outdoor activities has John done with his colleagues?',
    'What areas of the city has she been to?',
    'What kinds of music does Ann like?',
    'What are some changes Ann has faced?',
    'How many times has Ann gone to the beach?',
    'Did Ann and Bo both paint sunsets?',
    'Has Ann ever been to Paris?',
  ])('is true when the question asks for several things: %s', (q) => {
    expect(asksForSeveral(q)).toBe(true);
  });

  it.each([
    'What did Ann paint recently?',
    'What motivates Joanna to keep writing?',
    'What is Ann’s favourite book?',
    'What kind of pot did Ann make?',
    'When did Ann go hiking?',
    'What does Ann think about the adoption?',
    "What was Ann's reason for running?",
  ])('is false when the question asks for one thing: %s', (q) => {
    expect(asksForSeveral(q)).toBe(false);
  });
});
