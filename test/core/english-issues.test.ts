/**
 * ctxkit's English issue messages (`PARSE_IN_ENGLISH`) are written in schema.ts rather than loaded
 * from zod's English locale (bundle size): they must read word for word as zod's own. Every issue
 * kind a schema can raise is produced by a real parse and by hand, and both wordings compared.
 */

import { describe, expect, it } from 'vitest';
import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { messageSchema, PARSE_IN_ENGLISH } from '../../src/core/messages/schema.ts';
import { createPipeline } from '../../src/core/pipeline/pipeline.ts';

const zodEnglish = en().localeError;
const ours = PARSE_IN_ENGLISH.error!;

/** Every issue of parsing `input` with `schema`, with its input (what a locale is given). */
function rawIssues(schema: z.ZodMiniType, input: unknown): z.core.$ZodRawIssue[] {
  const result = z.safeParse(schema, input, { reportInput: true });
  const flat = (issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] =>
    issues.flatMap((i) => [i, ...('errors' in i ? i.errors.flatMap(flat) : [])]);
  return result.success ? [] : (flat(result.error.issues) as unknown as z.core.$ZodRawIssue[]);
}

class Custom {}
const CASES: Array<[string, z.ZodMiniType, unknown]> = [
  ['string given a number', z.string(), 1],
  ['number given NaN', z.number(), Number.NaN],
  ['number given Infinity', z.number(), Number.POSITIVE_INFINITY],
  ['int given a fraction', z.int(), 1.5],
  ['string given null', z.string(), null],
  ['string given an array', z.string(), [1]],
  ['string given undefined', z.string(), undefined],
  ['string given a class instance', z.string(), new Custom()],
  ['string given a Map', z.string(), new Map()],
  ['string given a null-prototype object', z.string(), Object.create(null)],
  ['string given a bigint', z.string(), 10n],
  ['string given a function', z.string(), () => 1],
  ['object given a string', z.object({ a: z.string() }), 'x'],
  ['literal', z.literal('x'), 'y'],
  ['numeric literal', z.literal(3), 4],
  ['enum', z.enum(['a', 'b', 'c']), 'd'],
  ['int above', z.int().check(z.lte(10)), 11],
  ['int above, exclusive', z.number().check(z.lt(10)), 10],
  ['int below', z.int().check(z.gte(1)), 0],
  ['number below, exclusive', z.number().check(z.gt(0)), 0],
  ['string too long', z.string().check(z.maxLength(2)), 'abc'],
  ['string too short', z.string().check(z.minLength(2)), 'a'],
  ['string exact length', z.string().check(z.length(2)), 'abc'],
  ['array too long', z.array(z.number()).check(z.maxLength(1)), [1, 2]],
  ['array too short', z.array(z.number()).check(z.minLength(1)), []],
  ['bigint above', z.bigint().check(z.lte(5n)), 6n],
  ['multiple of', z.number().check(z.multipleOf(3)), 4],
  ['one unknown key', z.strictObject({ a: z.optional(z.string()) }), { b: 1 }],
  ['two unknown keys', z.strictObject({ a: z.optional(z.string()) }), { b: 1, c: 2 }],
  ['record key', z.record(z.enum(['a']), z.number()), { b: 1 }],
  ['map element', z.map(z.string(), z.number()), new Map([['a', 'x']])],
  ['set element', z.set(z.number()), new Set(['x'])],
  ['union', z.union([z.string(), z.number()]), true],
  ['exclusive union', z.xor([z.string(), z.string().check(z.minLength(1))]), 'ab'],
  [
    'discriminated union',
    z.discriminatedUnion('type', [z.object({ type: z.literal('a') }), z.object({ type: z.literal('b') })]),
    { type: 'c' },
  ],
  ['a message', messageSchema, { id: 'm', role: 'robot', parts: [{ type: 'text', text: 1 }], extra: true }],
];

describe('English issue messages', () => {
  it.each(CASES)('reads as zod classic prints it: %s', (_name, schema, input) => {
    const issues = rawIssues(schema, input);
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) expect(ours(issue)).toBe(zodEnglish(issue));
  });

  it('matches zod on issues built by hand, string formats included', () => {
    const issues = [
      { code: 'too_big', origin: 'file', maximum: 3, inclusive: true, input: 1 },
      { code: 'too_big', origin: undefined, maximum: 3, inclusive: true, input: 1 },
      { code: 'too_small', origin: 'set', minimum: 2, inclusive: false, input: 1 },
      { code: 'too_small', origin: 'map', minimum: 2, exact: true, input: 1 },
      { code: 'invalid_value', values: [1n, 'a', true, null], input: 1 },
      { code: 'invalid_union', errors: [], options: [], input: 1 },
      { code: 'custom', input: 1 },
      { code: 'invalid_type', expected: 'nan', input: 1 },
    ] as unknown as z.core.$ZodRawIssue[];
    for (const issue of issues) expect(ours(issue)).toBe(zodEnglish(issue));
    // No core schema has a string format: ours names the format as zod's locale would for most.
    const format = { code: 'invalid_format', format: 'date', input: 'x' } as unknown as z.core.$ZodRawIssue;
    expect(ours(format)).toBe('Invalid date');
  });

  it('is what a bad option reads as, through the public API', () => {
    expect(() => createPipeline({ preset: 'default', budget: { contextWindow: -1 } })).toThrow(
      /Too small: expected number to be >0|expected number to be >=/,
    );
  });
});
