/**
 * A model's tool arguments kept as they came when they nest deeper than the service's bound
 * (`MAX_JSON_DEPTH`): 2,500 levels of JSON overflow the stack of the code that validates, compares and
 * clones a message (and so bricked the session, its view and the tenant's list). Such a value is
 * carried opaque — `{"$ctxkit_opaque":"<the JSON text>"}`, one level deep — through parsing, the log
 * and the pipeline (its characters still counted), and written back byte for byte in the body sent
 * upstream. Applied to the client's history (OpenAI and Responses `arguments`, Anthropic `tool_use`
 * `input`) and to the provider's answer before either is converted; anything else too deep in a
 * request is a 400 naming its path.
 */
import { MAX_JSON_DEPTH, tooDeep } from '../http/json-depth.ts';
import type { Protocol } from './protocol.ts';

export const OPAQUE_KEY = '$ctxkit_opaque';

type Dialect = Protocol['dialect'];
type Bag = Record<string, unknown>;

const isBag = (v: unknown): v is Bag => v !== null && typeof v === 'object' && !Array.isArray(v);

/** How deep a JSON text nests (objects and arrays), read without parsing it. */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** Text a serialization writes as it is. */
class Raw {
  constructor(readonly text: string) {}
}

/** `JSON.stringify` of plain JSON with its own stack: any depth (the native one overflows past ~10,000 levels). */
export function stringifyDeep(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v instanceof Raw) out.push(v.text);
    else if (Array.isArray(v)) {
      out.push('[');
      stack.push(new Raw(']'));
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push(v[i] === undefined ? null : v[i]);
        if (i > 0) stack.push(new Raw(','));
      }
    } else if (isBag(v)) {
      out.push('{');
      stack.push(new Raw('}'));
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, x] = entries[i]!;
        stack.push(x);
        stack.push(new Raw(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`));
      }
    } else out.push(JSON.stringify(v ?? null));
  }
  return out.join('');
}

/** The opaque form of a JSON text. */
export function opaqueText(raw: string): string {
  return JSON.stringify({ [OPAQUE_KEY]: raw });
}

/** `calls[].function.arguments` (OpenAI) too deep, made opaque in place; how many. */
function wrapArguments(calls: unknown, field: 'function' | undefined): number {
  if (!Array.isArray(calls)) return 0;
  let n = 0;
  for (const call of calls) {
    const holder = field ? (call as Bag | null)?.[field] : call;
    if (!isBag(holder) || typeof holder.arguments !== 'string') continue;
    if (jsonTextDepth(holder.arguments) <= MAX_JSON_DEPTH) continue;
    holder.arguments = opaqueText(holder.arguments);
    n++;
  }
  return n;
}

/** Anthropic `tool_use` inputs too deep, made opaque in place; how many. */
function wrapInputs(blocks: unknown): number {
  if (!Array.isArray(blocks)) return 0;
  let n = 0;
  for (const b of blocks)
    if (
      isBag(b) &&
      (b.type === 'tool_use' || b.type === 'server_tool_use') &&
      tooDeep(b.input, MAX_JSON_DEPTH)
    ) {
      b.input = { [OPAQUE_KEY]: stringifyDeep(b.input) };
      n++;
    }
  return n;
}

/** The client's body with its too-deep tool arguments made opaque (in place); how many were. */
export function wrapRequest(dialect: Dialect, body: unknown): number {
  if (!isBag(body)) return 0;
  let n = 0;
  if (dialect === 'openai' && Array.isArray(body.messages))
    for (const m of body.messages) if (isBag(m)) n += wrapArguments(m.tool_calls, 'function');
  if (dialect === 'responses' && Array.isArray(body.input))
    n += wrapArguments(
      body.input.filter((i) => isBag(i) && i.type === 'function_call'),
      undefined,
    );
  if (dialect === 'anthropic' && Array.isArray(body.messages))
    for (const m of body.messages) if (isBag(m)) n += wrapInputs(m.content);
  return n;
}

/** A provider's answer (whole, or as an accumulator rebuilt it) with its too-deep arguments made opaque. */
export function wrapAnswer(dialect: Dialect, answer: unknown): void {
  if (!isBag(answer)) return;
  if (dialect === 'openai') {
    if (Array.isArray(answer.choices))
      for (const c of answer.choices)
        if (isBag(c) && isBag(c.message)) wrapArguments(c.message.tool_calls, 'function');
    wrapArguments(answer.tool_calls, 'function');
  }
  if (dialect === 'responses' && Array.isArray(answer.output))
    wrapArguments(
      answer.output.filter((i) => isBag(i) && i.type === 'function_call'),
      undefined,
    );
  if (dialect === 'anthropic') wrapInputs(answer.content);
}

const OBJECT_FORM = `{"${OPAQUE_KEY}":`;
const STRING_FORM = JSON.stringify(OBJECT_FORM).slice(0, -1);

/** The end (exclusive) of the JSON string literal starting at `at` (a `"`). */
function literalEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

/** A serialized body with every opaque value written back as it came. */
export function unwrapBody(text: string): string {
  const out: string[] = [];
  let from = 0;
  for (;;) {
    const obj = text.indexOf(OBJECT_FORM, from);
    const str = text.indexOf(STRING_FORM, from);
    const at = obj < 0 ? str : str < 0 ? obj : Math.min(obj, str);
    if (at < 0) break;
    let end = -1;
    let raw: string | undefined;
    try {
      if (at === obj) {
        const lit = at + OBJECT_FORM.length;
        const close = literalEnd(text, lit);
        if (close > 0 && text[close] === '}') {
          raw = JSON.parse(text.slice(lit, close)) as string;
          end = close + 1;
        }
      } else {
        const close = literalEnd(text, at);
        const wrapper = JSON.parse(JSON.parse(text.slice(at, close)) as string) as Bag;
        if (typeof wrapper[OPAQUE_KEY] === 'string' && Object.keys(wrapper).length === 1) {
          raw = JSON.stringify(wrapper[OPAQUE_KEY]);
          end = close;
        }
      }
    } catch {}
    if (raw === undefined || end < 0) {
      out.push(text.slice(from, at + 1));
      from = at + 1;
      continue;
    }
    out.push(text.slice(from, at), raw);
    from = end;
  }
  out.push(text.slice(from));
  return out.join('');
}
