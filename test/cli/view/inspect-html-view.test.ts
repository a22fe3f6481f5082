/**
 * `ctxcheck inspect --html` on a real Claude Code session with a system prompt and tool schemas: the
 * page opens on what the next pre-flight changes, with the summary it writes in full; the system prompt
 * and every tool schema are rows with their text; and the originals are where the file keeps them,
 * never at a service route.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ctxcheck, tempDir, writeJson } from '../ctxcheck/helpers.ts';

const TRAJECTORY = join(
  import.meta.dirname,
  '../../../../shared/data/trajectories/claude-code/258c7280-ae70-4798-800f-63464d01a85d.json',
);
const present = existsSync(TRAJECTORY);

const SYSTEM = 'You are Claude Code, a careful engineer. Never push to main without the tests passing.';
const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'Read',
      description: 'Reads a file from the local filesystem.',
      parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'Bash',
      description: 'Runs a shell command.',
      parameters: { type: 'object', properties: { command: { type: 'string' } } },
    },
  },
];

const unescaped = (html: string) =>
  html
    .replaceAll('&#47;', '/')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

let html = '';
beforeAll(async () => {
  if (!present) return;
  const dir = await tempDir();
  const raw = JSON.parse(await readFile(TRAJECTORY, 'utf8')) as { messages: unknown[] };
  // The session as an OpenAI request body: its system prompt first, its tools beside the messages.
  await writeJson(dir, 'session.json', {
    messages: [{ role: 'system', content: SYSTEM }, ...raw.messages],
    tools: TOOLS,
  });
  const r = await ctxcheck(['inspect', 'session.json', '--window', '20000', '--html', 'view.html'], dir);
  expect(r.code, r.stderr).toBe(0);
  html = await readFile(join(dir, 'view.html'), 'utf8');
}, 60_000);

describe.skipIf(!present)('ctxcheck inspect --html', () => {
  it('opens on what the next pre-flight changes, with the summary it inserts in full', () => {
    const changes = html.indexOf('id="changed-h"');
    expect(changes).toBeGreaterThan(0);
    expect(changes).toBeLessThan(html.indexOf('id="before-window"'));
    const section = html.slice(changes, html.indexOf('</section>', changes));
    expect(section).toMatch(/<strong>inserted<\/strong> by compaction/);
    const summary = /<pre>(\[Previous conversation summary\][\s\S]*?)<\/pre>/.exec(section);
    expect(summary).not.toBeNull();
    expect(unescaped(summary![1]!)).toContain('## Files Changed');
    expect(section).toMatch(/summarized by compaction<\/strong><\/td><td data-label="message">\d+ messages/);
  });

  it('shows the system prompt and every tool schema as rows with their text and tokens', () => {
    const text = unescaped(html);
    expect(text).toContain(`<pre>${SYSTEM}</pre>`);
    expect(text).toMatch(/tool Read[\s\S]*?"description": "Reads a file from the local filesystem\."/);
    expect(text).toMatch(/tool Bash/);
    expect(html).toContain('data-tokens="system"');
    expect(html).toContain('data-tokens="tools"');
  });

  it('holds one style block and one script and nothing else a strict content security policy refuses', () => {
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html.match(/<style>/g)).toHaveLength(1);
    expect(html).not.toMatch(/<[^>]+\sstyle=/);
    expect(html).not.toMatch(/<[^>]+\son[a-z]+=/);
  });

  it('says where the file keeps each original, never a service route', () => {
    expect(html).not.toContain('/v1/sessions');
    expect(html).not.toContain('&#47;v1&#47;sessions');
    expect(html).not.toContain('keep your own history');
    expect(unescaped(html)).toMatch(/message \d+ of session\.json, unchanged/);
  });
});

describe.skipIf(present)('ctxcheck inspect --html (real data)', () => {
  it.skip(`skipped: ${TRAJECTORY} is absent (see ../shared/data/README.md)`, () => {});
});
