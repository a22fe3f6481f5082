import { describe, expect, it } from 'vitest';
import type { Message, StageReport } from '../../../src/core/index.ts';
import { createChars4Counter } from '../../../src/core/index.ts';
import { buildContextView } from '../../../src/view/context-model.ts';
import { esc, renderPage } from '../../../src/view/html.ts';
import { renderContextView } from '../../../src/view/render-context.ts';
import { renderTimeline, type TimelineCall } from '../../../src/view/render-session.ts';

const budget = {
  window: 200_000,
  usable: 180_000,
  warning: 150_000,
  autoCompact: 160_000,
  blocking: 175_000,
};
const counter = createChars4Counter();

/** A session of `n` messages cycling through every kind the view draws. */
function session(n: number): Message[] {
  return Array.from({ length: n }, (_, i): Message => {
    const id = `m${i}`;
    switch (i % 5) {
      case 0:
        return { id, role: 'user', parts: [{ type: 'text', text: `question ${i} ${'word '.repeat(40)}` }] };
      case 1:
        return {
          id,
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'thinking '.repeat(20) },
            { type: 'tool-call', id: `c${i}`, name: 'read_file', args: { path: `src/f${i}.ts` } },
          ],
        };
      case 2:
        return {
          id,
          role: 'tool',
          parts: [{ type: 'tool-result', callId: `c${i - 1}`, output: 'x'.repeat(800) }],
        };
      case 3:
        return {
          id,
          role: 'user',
          parts: [{ type: 'text', text: 'summary of earlier turns' }],
          meta: { kind: 'summary' },
        };
      default:
        return { id, role: 'assistant', parts: [{ type: 'text', text: `answer ${i}` }] };
    }
  });
}

describe('buildContextView', () => {
  it('splits every message over its categories so they add up to the counted total when given mixed kinds', () => {
    const messages = session(50);
    const v = buildContextView({
      title: 't',
      messages,
      counter,
      budget,
      system: 'be brief',
      tools: [{ name: 'read_file', json: '{"name":"read_file","parameters":{"type":"object"}}' }],
      injected: [{ label: 'memory block', text: '## Memory\n- the build runs with npm' }],
    });
    const sum =
      messages.reduce((n, m) => n + counter.countMessage(m), 0) +
      counter.countText('be brief') +
      counter.countText('{"name":"read_file","parameters":{"type":"object"}}') +
      counter.countText('## Memory\n- the build runs with npm');
    expect(v.counted).toBe(sum);
    expect(v.segments.map((s) => s.category)).toEqual([
      'system',
      'tools',
      'injected',
      'summary',
      'text',
      'reasoning',
      'tool-call',
      'tool-result',
    ]);
    expect(v.largest[0]!.category).toBe('tool-result');
    expect(v.rows[3]!.category).toBe('summary');
  });

  it('gives every part of the prompt a row with its tokens and full text when given a system prompt, tools and an injected block', () => {
    const v = buildContextView({
      title: 't',
      messages: session(5),
      counter,
      budget,
      system: 'You are a careful engineer.',
      tools: [{ name: 'read_file', json: '{"name":"read_file"}' }],
      injected: [{ label: 'memory block', text: '- the build runs with npm' }],
    });
    expect(v.parts.map((r) => [r.category, r.label, r.text])).toEqual([
      ['system', 'system prompt', 'You are a careful engineer.'],
      ['injected', 'memory block', '- the build runs with npm'],
      ['tools', 'tool read_file', '{"name":"read_file"}'],
    ]);
    expect(v.parts[1]!.ctxkit).toBe(true);
    expect(v.rows[3]!.text).toBe('summary of earlier turns');
    expect(v.parts.every((r) => r.tokens > 0)).toBe(true);
  });

  it('reports the level the tokens reach when no level is given', () => {
    const v = buildContextView({ title: 't', messages: [], counter, budget, tokens: 161_000 });
    expect(v.level).toBe('compact');
  });
});

describe('renderContextView', () => {
  it('renders a 1,000-message session in under a second', () => {
    const messages = session(1000);
    const t0 = performance.now();
    const html = renderPage({
      title: 'x',
      body: renderContextView(buildContextView({ title: 'big', messages, counter, budget })),
    });
    const ms = performance.now() - t0;
    expect(html.match(/<tr data-kind=/g)?.length).toBe(1000 + 10);
    // Each message's full text is on the page, closed until asked for.
    expect(html.match(/<details class="full">/g)?.length).toBe(1000);
    expect(ms).toBeLessThan(1000);
  });

  it('escapes message text and labels the picture for screen readers when content holds markup', () => {
    const messages: Message[] = [
      {
        id: 'a',
        role: 'user',
        parts: [{ type: 'text', text: '<script>alert(1)</script> see https://example.com' }],
      },
    ];
    const html = renderContextView(buildContextView({ title: 't', messages, counter, budget }));
    expect(html).not.toContain('<script>alert');
    // The full text is there, escaped.
    expect(html).toContain(
      '<pre>&lt;script&gt;alert(1)&lt;&#47;script&gt; see https:&#47;&#47;example.com</pre>',
    );
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).toMatch(/role="img" aria-label="[^"]+usable tokens/);
    // Nothing a strict content security policy refuses: no style attribute, no inline event handler.
    expect(html).not.toMatch(/\sstyle=/);
    expect(html).not.toMatch(/\son[a-z]+=/);
    expect(html).toContain('<label>Search<input type="search"');
  });
});

describe('renderTimeline', () => {
  const call = (id: string, reports: StageReport[] = []): TimelineCall => ({
    kind: 'proxy',
    id,
    at: 0,
    provider: 'openai',
    model: 'gpt-4o',
    stream: false,
    appended: 1,
    diverged: false,
    estimate: { before: 100, after: 100, level: 'ok', anchored: false },
    reports,
    changes: {},
    compacted: false,
    overflow: false,
  });

  it('pages the calls and says how many the session made and kept when the timeline holds more than a page', () => {
    const html = renderTimeline('s1', [call('c3'), call('c4')], {
      offset: 2,
      limit: 2,
      total: 152,
      kept: 100,
      detailed: 100,
    });
    expect(html).toContain('calls 3–4 of 100 (newest first) · the 52 oldest are no longer kept');
    expect(html).toContain('href="#&#47;sessions&#47;s1?offset=0"');
    expect(html).toContain('href="#&#47;sessions&#47;s1?offset=4"');
  });

  it('gives the level its reason when nothing changed', () => {
    const skipped: StageReport = {
      stage: 'pruning',
      status: 'skipped',
      tokensBefore: 100,
      tokensAfter: 100,
      detail: 'level ok below warn',
    };
    expect(renderTimeline('s1', [call('c1', [skipped])])).toContain(
      'nothing changed — pruning skipped: level ok below warn',
    );
  });
});

describe('esc', () => {
  it('escapes the characters that end an attribute or open a tag when given them', () => {
    expect(esc(`<a href="x">'&'/`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&#47;');
  });
});
