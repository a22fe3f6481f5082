/**
 * zod's English issue messages, written here (see `englishIssue`) rather than loaded from zod's
 * English locale; `PARSE_IN_ENGLISH` in schema.ts passes them to every core parse.
 */
import type * as z from 'zod/mini';

/** A value as zod's messages quote it. */
const quoted = (v: unknown) => (typeof v === 'string' ? `"${v}"` : typeof v === 'bigint' ? `${v}n` : `${v}`);

/** The type zod's messages say it received. */
function receivedType(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? 'number' : String(v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  const made = typeof v === 'object' && Object.getPrototypeOf(v) !== Object.prototype && v.constructor;
  return made ? made.name : typeof v;
}

const UNITS: Record<string, string> = {
  string: 'characters',
  file: 'bytes',
  array: 'items',
  set: 'items',
  map: 'entries',
};

/**
 * zod's English message for an issue, word for word as zod classic prints it (a test compares the two
 * over every kind of issue), for the kinds core schemas raise; string formats, which no core schema
 * has, read `Invalid {format}`. Written here rather than loading zod's English locale, whose tables
 * are mostly string formats: a bundle with `createPipeline` carries these few lines instead.
 */
export function englishIssue(raw: z.core.$ZodRawIssue): string {
  const issue = raw as unknown as Record<string, unknown>;
  const { origin, maximum, minimum } = issue;
  const bound = (word: string, adj: string, n: unknown, subject: unknown) => {
    const unit = UNITS[origin as string];
    return `Too ${word}: expected ${subject} to ${unit ? 'have' : 'be'} ${issue.exact ? 'exactly ' : adj}${n}${unit ? ` ${unit}` : ''}`;
  };
  switch (raw.code) {
    case 'invalid_type':
      return `Invalid input: expected ${issue.expected === 'nan' ? 'NaN' : issue.expected}, received ${receivedType(issue.input)}`;
    case 'invalid_value': {
      const values = issue.values as unknown[];
      return values.length === 1
        ? `Invalid input: expected ${quoted(values[0])}`
        : `Invalid option: expected one of ${values.map(quoted).join('|')}`;
    }
    case 'too_big':
      return bound('big', issue.inclusive ? '<=' : '<', maximum, origin ?? 'value');
    case 'too_small':
      return bound('small', issue.inclusive ? '>=' : '>', minimum, origin);
    case 'invalid_format':
      return `Invalid ${issue.format}`;
    case 'not_multiple_of':
      return `Invalid number: must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys': {
      const keys = issue.keys as unknown[];
      return `Unrecognized key${keys.length > 1 ? 's' : ''}: ${keys.map(quoted).join(', ')}`;
    }
    case 'invalid_key':
      return `Invalid key in ${origin}`;
    case 'invalid_element':
      return `Invalid value in ${origin}`;
    case 'invalid_union': {
      const options = issue.options as unknown[] | undefined;
      if (options?.length)
        return `Invalid discriminator value. Expected ${options.map((o) => `'${o}'`).join(' | ')}`;
      return issue.inclusive === false ? 'Invalid input: more than one option matched' : 'Invalid input';
    }
    default:
      return 'Invalid input';
  }
}
