/**
 * Every value the service stores fits what production accepts in one value (D1's 2,000,000 bytes, a
 * Durable Object's 2 MiB), which local D1 and Miniflare do not enforce: each bound, taken at its worst
 * (3 UTF-8 bytes for a character of the BMP, JSON's escapes), with its neighbours in the same row.
 */
import { describe, expect, it } from 'vitest';
import { LARGE_ROW_CHARS } from '../../src/db/sql/large-rows.ts';
import { LARGE_STATE_CHARS } from '../../src/db/sql/large-state.ts';
import { REFS_PER_WRITE } from '../../src/db/sql/sql-session-store.ts';
import { MAX_JOURNAL_BYTES } from '../../src/worker/proxy/call-log.ts';
import { TEXT_PIECE } from '../../src/worker/proxy/call-texts.ts';
import { PRODUCTION_VALUE_BYTES } from '../../src/worker/service-bounds.ts';
import { ANSWER_PIECE_CHARS } from '../../src/worker/session/idempotent-writes.ts';
import { DOCUMENT_PART_BYTES } from '../../src/worker/session/memory-documents.ts';

/** UTF-8 bytes of a string of `chars` UTF-16 code units at most. */
const worstBytes = (chars: number) => chars * 3;

describe('PRODUCTION_VALUE_BYTES', () => {
  it('holds a log row: its message JSON and its indexed text (half as many characters) together', () => {
    expect(worstBytes(LARGE_ROW_CHARS) + worstBytes(LARGE_ROW_CHARS / 2)).toBeLessThan(
      PRODUCTION_VALUE_BYTES.d1,
    );
  });
  it("holds a session's state row", () => {
    expect(worstBytes(LARGE_STATE_CHARS) + 2_000).toBeLessThan(PRODUCTION_VALUE_BYTES.d1);
  });
  it('holds a memory document part', () => {
    expect(DOCUMENT_PART_BYTES).toBeLessThan(PRODUCTION_VALUE_BYTES.d1);
  });
  it('holds a call record (its journal, bounded in bytes, beside its lists of 2,000 entries each)', () => {
    expect(MAX_JOURNAL_BYTES + 2 * 2_000 * 40).toBeLessThan(PRODUCTION_VALUE_BYTES.durableObject);
  });
  it("holds a piece of an idempotent answer and of a call's texts", () => {
    expect(worstBytes(ANSWER_PIECE_CHARS)).toBeLessThan(PRODUCTION_VALUE_BYTES.durableObject);
    expect(worstBytes(TEXT_PIECE)).toBeLessThan(PRODUCTION_VALUE_BYTES.durableObject);
  });
  it("holds the list of a working context's seqs one compacted-flags update binds (seqs of up to 16 digits)", () => {
    expect(`[${Array(REFS_PER_WRITE).fill('9'.repeat(16)).join(',')}]`.length).toBeLessThan(
      PRODUCTION_VALUE_BYTES.d1,
    );
  });
});
