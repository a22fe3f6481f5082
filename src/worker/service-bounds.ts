/**
 * The bounds a client can run into (docs/service.md, "Bounds"): how large an answer or one streamed
 * event may be, how much a session may hold, how long a request body may take to arrive. Each has a
 * default, an environment variable and real limits; a value outside them is a configuration error
 * naming the variable (400 `invalid_config`), never a bound silently ignored.
 */
import { CtxError } from '../core/index.ts';
import type { Env } from './env.ts';

export interface ServiceBounds {
  /** Bytes of one upstream answer (whole or streamed) the proxy relays and logs. */
  answerBytes: number;
  /** Bytes of one event of a streamed answer. */
  eventBytes: number;
  /** Bytes one session's log may hold (messages as stored, large ones in the blob store included). */
  sessionBytes: number;
  /** Ms a request body may take to arrive, once its headers did. */
  bodyReadMs: number;
  /** Elements of the history list one proxied request may carry (`messages`, or `input`). */
  proxyMessages: number;
  /** Bytes of a request body to ctxkit's own routes. */
  bodyBytes: number;
  /** Bytes of a request body to the proxy (a whole history with its tool outputs). */
  proxyBodyBytes: number;
}

interface Bound {
  env: string;
  min: number;
  max: number;
  unit: string;
}

const MIB = 1024 * 1024;

const BOUNDS = {
  answerBytes: { env: 'PROXY_MAX_ANSWER_BYTES', min: MIB, max: 128 * MIB, unit: 'bytes' },
  eventBytes: { env: 'PROXY_MAX_EVENT_BYTES', min: 64 * 1024, max: 64 * MIB, unit: 'bytes' },
  sessionBytes: { env: 'MAX_SESSION_BYTES', min: MIB, max: 1024 * MIB, unit: 'bytes' },
  bodyReadMs: { env: 'BODY_READ_TIMEOUT_MS', min: 100, max: 600_000, unit: 'milliseconds' },
  proxyMessages: { env: 'PROXY_MAX_MESSAGES', min: 1, max: 1_000_000, unit: 'messages' },
  bodyBytes: { env: 'MAX_BODY_BYTES', min: 1024, max: 128 * MIB, unit: 'bytes' },
  proxyBodyBytes: { env: 'PROXY_MAX_BODY_BYTES', min: 64 * 1024, max: 128 * MIB, unit: 'bytes' },
} as const satisfies Record<keyof ServiceBounds, Bound>;

/**
 * @default a 32 MiB answer (what the proxy accepts as a request), 16 MiB for one event, 64 MiB per
 * session, 30 s for a body to arrive, 100,000 messages in one proxied request (the most Anthropic's
 * Messages API takes in one request; a 32 MiB body of tiny messages holds a million, minutes of work),
 * 1 MiB for a body to ctxkit's own routes and 32 MiB for one to the proxy
 */
export const DEFAULT_BOUNDS = {
  answerBytes: 32 * MIB,
  eventBytes: 16 * MIB,
  sessionBytes: 64 * MIB,
  bodyReadMs: 30_000,
  proxyMessages: 100_000,
  bodyBytes: MIB,
  proxyBodyBytes: 32 * MIB,
} as const satisfies ServiceBounds;

/** Bytes of messages one page of a session's log carries at most (a larger first row comes alone). */
export const LOG_PAGE_BYTES = 16 * MIB;

/** The variable that sets each bound, for messages that tell an operator what to raise. */
export const BOUND_VARS: Record<keyof ServiceBounds, string> = Object.fromEntries(
  Object.entries(BOUNDS).map(([k, b]) => [k, b.env]),
) as Record<keyof ServiceBounds, string>;

/** The bounds from the environment, each checked against its limits. */
export function serviceBounds(env: Env): ServiceBounds {
  const out: ServiceBounds = { ...DEFAULT_BOUNDS };
  for (const field of Object.keys(BOUNDS) as Array<keyof ServiceBounds>) {
    const b: Bound = BOUNDS[field];
    const raw = env[b.env];
    if (raw === undefined || raw === '') continue;
    const text = String(raw).trim();
    const n = /^\d{1,12}$/.test(text) ? Number(text) : Number.NaN;
    if (!(n >= b.min && n <= b.max))
      throw new CtxError('invalid_config', `must be an integer from ${b.min} to ${b.max} (${b.unit})`, {
        path: b.env,
      });
    out[field] = n;
  }
  return out;
}

/**
 * What production stores accept in one value, which local D1 and Miniflare do not enforce (so that a
 * test run locally would never see the refusal): D1 refuses a string, BLOB or row over 2,000,000
 * bytes; a SQLite-backed Durable Object's key and value together over 2 MiB. Every value the service
 * stores is bounded under these (test/worker/storage-bounds.test.ts walks them): a log row
 * (`LARGE_ROW_CHARS`, larger in R2), a session's state (`LARGE_STATE_CHARS`, larger in R2), a memory
 * document (`DOCUMENT_PART_BYTES`, then the next part), a call record's journal (`MAX_JOURNAL_BYTES`),
 * an idempotent answer and a call's texts (in pieces of `ANSWER_PIECE_CHARS`, `TEXT_PIECE`).
 */
export const PRODUCTION_VALUE_BYTES = { d1: 2_000_000, durableObject: 2 * MIB } as const;
