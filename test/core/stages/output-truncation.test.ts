import { describe, expect, it } from 'vitest';
import { createMemoryBlobStore } from '../../../src/core/blobs/memory-blob-store.ts';
import { sha256Hex } from '../../../src/core/blobs/sha256.ts';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { ToolResultPart } from '../../../src/core/messages/types.ts';
import { createOutputTruncation } from '../../../src/core/pipeline/stages/output-truncation.ts';
import { fixedClock, randomIds, sequentialIds } from '../../../src/core/ports.ts';
import { deepFreeze, frozen, makeCtx, out } from './cheap-helpers.ts';

const lines = (n: number, f: (i: number) => string = (i) => `line ${i}`) =>
  Array.from({ length: n }, (_, i) => f(i)).join('\n');
const part = (output: string, extra: Partial<ToolResultPart> = {}): ToolResultPart =>
  deepFreeze({ type: 'tool-result', callId: 'c1', name: 'bash', output, ...extra });
const env = () => ({
  blobs: createMemoryBlobStore(),
  clock: fixedClock(1_700_000_000_000),
  ids: sequentialIds(),
});

describe('createOutputTruncation (kosmokrator)', () => {
  const stage = createOutputTruncation({ mode: 'kosmokrator' });

  it('keeps the first 2000 lines, spills the full output and appends the 002 notice when over 2000 lines', async () => {
    const e = env();
    const text = lines(2500);
    const r = await stage.truncate(part(text), e);
    expect(r.part.output).toBe(
      `${lines(2000)}\n\n[truncated - full output saved to memory://blobs/c1; inspect with targeted grep/file_read rather than pasting it back into context]`,
    );
    expect(await e.blobs.get('c1')).toBe(text);
    expect(r.blob?.sha256).toBe(await sha256Hex(text));
  });

  it('returns the part itself when exactly at 2000 lines and 50000 bytes', async () => {
    const p = part(lines(2000, (i) => 'x'.repeat(i === 0 ? 25 : 24)));
    expect((p.output as string).length).toBe(50000);
    const r = await stage.truncate(p, env());
    expect([r.changed, r.part === p]).toEqual([false, true]);
  });

  it('cuts a long single line to 50000 bytes on a UTF-8 boundary', async () => {
    const r = await stage.truncate(part('é'.repeat(30001)), env());
    expect((r.part.output as string).startsWith(`${'é'.repeat(25000)}\n\n[truncated - `)).toBe(true);
  });

  it('leaves error results untouched', async () => {
    const p = part(lines(3000), { isError: true });
    expect((await stage.truncate(p, env())).part).toBe(p);
  });

  it('names the 002 error path when the spill cannot be written', async () => {
    const r = await stage.truncate(part(lines(2001)), { clock: fixedClock(0), ids: sequentialIds() });
    expect(r.part.output).toMatch(
      /\[truncated - full output saved to \[error: could not save full output to disk\]; /,
    );
  });
});

describe('createOutputTruncation (tiancai)', () => {
  const stage = createOutputTruncation({ mode: 'tiancai' });

  it('replaces the output by the spill notice with SHA-256 when over 204800 runes', async () => {
    const e = env();
    const text = '世'.repeat(300000);
    const r = await stage.truncate(part(text), e);
    const id = 'tool_output_1700000000000000000_c1';
    expect(r.part.output).toBe(
      `[tool output too large: 300000 chars]\nSaved to: memory://blobs/${id}\nSHA256: ${await sha256Hex(text)}`,
    );
    expect(await e.blobs.get(id)).toBe(text);
  });

  it('keeps head and tail lines with a marker line and appends the stats notice when over 2000 lines', async () => {
    const r = await stage.truncate(part(lines(2500, (i) => `${i}`)), env());
    const text = r.part.output as string;
    const [body, notice] = text.split('\n\n');
    const kept = body!.split('\n');
    expect([kept.length, kept[999], kept[1000], kept[1001], kept.at(-1)]).toEqual([
      2001,
      '999',
      '... [truncated 500 lines] ...',
      '1500',
      '2499',
    ]);
    const bytes = new TextEncoder().encode(lines(2500, (i) => `${i}`)).length;
    expect(notice).toBe(
      `[tool output truncated: showing 2001/2500 lines, ${body!.length}B/${(bytes / 1024).toFixed(1)}KB bytes, ${body!.length}/${bytes} chars]`.replace(
        `${body!.length}B`,
        `${(body!.length / 1024).toFixed(1)}KB`,
      ),
    );
  });

  it('formats 51200 bytes as 50.0KB when a single line is over the byte limit', async () => {
    const r = await stage.truncate(part('a'.repeat(60000)), env());
    expect(r.part.output).toBe(
      `${'a'.repeat(51200)}\n\n[tool output truncated: showing 1/1 lines, 50.0KB/58.6KB bytes, 51200/60000 chars]`,
    );
  });

  it('truncates error results too', async () => {
    const r = await stage.truncate(part('b'.repeat(60000), { isError: true }), env());
    expect(r.changed).toBe(true);
  });

  it('prefixes the spill failure and goes on when the store throws', async () => {
    const blobs = createMemoryBlobStore();
    blobs.put = async () => {
      throw new Error('disk full');
    };
    const r = await stage.truncate(part('x'.repeat(204801)), {
      blobs,
      clock: fixedClock(0),
      ids: sequentialIds(),
    });
    const text = r.part.output as string;
    expect(text.startsWith('[tool output spill failed: disk full]\n\nxxx')).toBe(true);
    const total = '[tool output spill failed: disk full]\n\n'.length + 204801;
    expect(text.endsWith(`50.0KB/${(total / 1024).toFixed(1)}KB bytes, 51200/${total} chars]`)).toBe(true);
  });

  it('returns the part itself when the output is empty', async () => {
    const p = part('');
    expect((await stage.truncate(p, env())).part).toBe(p);
  });
});

describe('createOutputTruncation (cowagent)', () => {
  const stage = createOutputTruncation({ mode: 'cowagent' });

  it('keeps the first 50000 chars with the 000 notice when a result is over 50000 chars', async () => {
    const r = await stage.truncate(part('z'.repeat(60000), { name: 'web_fetch' }), env());
    expect(r.part.output).toBe(
      `${'z'.repeat(50000)}\n\n[Output truncated: 60000 chars total, showing first 50000 chars]`,
    );
  });

  it('keeps the last 2000 lines of bash output with the bash notice', async () => {
    const r = await stage.truncate(part(lines(3000)), env());
    const text = r.part.output as string;
    expect(text.startsWith('line 1000\n')).toBe(true);
    expect(
      text.endsWith('line 2999\n\n[Showing lines 1001-3000 of 3000. Full output: memory://blobs/c1_out_1]'),
    ).toBe(true);
  });

  it('keeps the first 2000 lines of a read with the read notice and no spill', async () => {
    const e = env();
    const r = await stage.truncate(part(lines(2500), { name: 'read' }), e);
    expect(r.part.output).toBe(
      `${lines(2000)}\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]`,
    );
    expect(r.blob).toBeUndefined();
  });

  it('measures dict outputs as Python json.dumps', async () => {
    const r = await stage.truncate(
      deepFreeze({
        type: 'tool-result',
        callId: 'c1',
        name: 'api',
        output: { k: 'v'.repeat(50000) },
      }) as ToolResultPart,
      env(),
    );
    expect((r.part.output as string).startsWith('{"k": "vvv')).toBe(true);
  });
});

describe('createOutputTruncation (default)', () => {
  const stage = createOutputTruncation();

  it('keeps head and tail lines, spills, and names blob, SHA-256 and location when over 2000 lines', async () => {
    const e = env();
    const text = lines(5000);
    const r = await stage.truncate(part(text), e);
    const output = r.part.output as string;
    expect(output.startsWith(`${lines(1000)}\n… [`)).toBe(true);
    expect(output).toContain(
      `line 4999\n\n[output truncated: showing the first 1,000 and last 1,000 of 5,000 lines`,
    );
    const id = /full output saved as blob (c1_[0-9a-f]{8}) \(/.exec(output)?.[1];
    expect(id).toBeDefined();
    expect(output).toContain(`SHA-256 ${await sha256Hex(text)}) — read it back from memory://blobs/${id}`);
    expect(await e.blobs.get(id!)).toBe(text);
  });

  it('names the same blob for the same output whatever the id generator, so the notice reads the same bytes on every run', async () => {
    const text = lines(5000);
    const a = await stage.truncate(part(text), { ...env(), ids: randomIds });
    const b = await stage.truncate(part(text), { ...env(), ids: randomIds });
    expect(a.part.output).toBe(b.part.output);
    expect(a.blob?.id).toBe(b.blob?.id);
  });

  it('cuts by bytes head and tail when one line is huge', async () => {
    const r = await stage.truncate(part(`start${'m'.repeat(100000)}end`), env());
    const output = r.part.output as string;
    expect(output.startsWith('startmmm')).toBe(true);
    expect(output).toMatch(/mmmend\n\n\[output truncated: /);
  });
});

describe('createOutputTruncation as a stage', () => {
  const big = lines(2500);
  const history = () =>
    frozen([
      user('go', { id: 'u1' }),
      assistant('', [toolCall('old', 'bash', { command: 'cat a' })], { id: 'a1' }),
      toolResult('old', 'bash', big, { id: 't1' }),
      assistant('', [toolCall('c1', 'bash'), toolCall('c2', 'grep')], { id: 'a2' }),
      toolResult('c1', 'bash', big, { id: 't2' }),
      toolResult('c2', 'grep', 'small', { id: 't3' }),
    ]);

  it('truncates only results after the last assistant message and journals the spill', async () => {
    const blobs = createMemoryBlobStore();
    const input = history();
    const r = await createOutputTruncation({ mode: 'kosmokrator' }).run(input, makeCtx({ blobs }));
    expect(r.report.status).toBe('applied');
    expect(r.messages[2]).toBe(input[2]);
    expect(r.messages[5]).toBe(input[5]);
    expect(out(r.messages[4]).split('\n').length).toBe(2002);
    expect(r.journal.map((j) => [j.action, j.messageId, j.location])).toEqual([['spilled', 't2', 'blob:c1']]);
    expect(r.report.tokensAfter).toBeLessThan(r.report.tokensBefore);
  });

  it('returns the input itself on a second run', async () => {
    const stage = createOutputTruncation({ mode: 'kosmokrator' });
    const ctx = makeCtx({ blobs: createMemoryBlobStore() });
    const first = await stage.run(history(), ctx);
    const second = await stage.run(deepFreeze(first.messages), ctx);
    expect([second.report.status, second.messages === first.messages]).toEqual(['noop', true]);
  });

  it('leaves excluded tools and pinned messages alone', async () => {
    const input = history();
    const ctx = makeCtx({ blobs: createMemoryBlobStore(), excludeTools: new Set(['bash']) });
    const r = await createOutputTruncation({ scope: 'all' }).run(input, ctx);
    expect([r.report.status, r.messages === input]).toEqual(['noop', true]);
    const pinned = frozen([
      user('go'),
      assistant('', [toolCall('p1', 'bash')]),
      toolResult('p1', 'bash', big, { meta: { pinned: true } }),
    ]);
    const r2 = await createOutputTruncation().run(pinned, makeCtx({ blobs: createMemoryBlobStore() }));
    expect(r2.messages).toBe(pinned);
  });
});
