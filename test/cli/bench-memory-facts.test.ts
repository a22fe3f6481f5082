/**
 * `ctxcheck bench memory --facts-url --facts-model`: a model behind a local fake Chat Completions
 * server extracts each session's facts before the questions are asked, on a tiny synthetic
 * conversation (not LoCoMo): the facts it returns become fact keys that change the ranking.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCli } from '../../src/cli/cli.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { FACTS_KEY_ENV, parseFactsModel } from '../../src/cli/memory/facts-model.ts';
import { FACT_SYSTEM_PROMPT } from '../../src/core/index.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../support/fake-openai-server.ts';

/** One session of four turns; the question shares no word with the turn that answers it. */
function tinyConversation(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-facts-'));
  const file = join(dir, 'facts.json');
  const turns = [
    ['Ana', 'D1:1', 'We finally booked the ferry tickets for the island trip.'],
    ['Ben', 'D1:2', 'Nice. I spent the weekend fixing the garden fence.'],
    ['Ana', 'D1:3', 'My brother accepted the offer from the hospital in Porto.'],
    ['Ben', 'D1:4', 'Tell him congratulations from me and the kids.'],
  ];
  const conversation = [
    {
      sample_id: 'facts-tiny',
      conversation: {
        speaker_a: 'Ana',
        speaker_b: 'Ben',
        session_1_date_time: '10:00 am on 3 June, 2023',
        session_1: turns.map(([speaker, dia_id, text]) => ({ speaker, dia_id, text })),
      },
      qa: [{ question: 'Who relocates to Portugal for work?', evidence: ['D1:3'], category: 4 }],
    },
  ];
  writeFileSync(file, JSON.stringify(conversation));
  return file;
}

const FACTS = JSON.stringify({
  facts: [{ fact: "Ana's brother relocates to Portugal for work at a hospital in Porto.", turns: ['D1:3'] }],
});

let fake: FakeOpenAIServer;
let file: string;
beforeAll(async () => {
  fake = await startFakeOpenAIServer();
  file = tinyConversation();
});
afterAll(() => fake?.close());
beforeEach(() => {
  fake.requests.length = 0;
});

async function bench(extra: string[], env: Record<string, string> = {}) {
  const io = bufferIo({ env });
  const args = [
    'bench',
    'memory',
    '--locomo',
    file,
    '--embedder',
    'hashing',
    '--no-cache',
    '--json',
    ...extra,
  ];
  const code = await createCli(args, io).run();
  return { code, io, json: () => JSON.parse(io.stdout()) };
}

describe('ctxcheck bench memory --facts-url', () => {
  it('ranks the turn only a model fact names first when the fake model returns that fact', async () => {
    const without = await bench([]);
    expect(without.code).toBe(0);
    expect(without.json().overall.recall.keyword.at5).toBe(0);
    expect(fake.requests).toHaveLength(0);

    fake.script({ kind: 'answer', content: FACTS });
    const withFacts = await bench(['--facts-url', `${fake.baseURL}`, '--facts-model', 'fact-model-1'], {
      [FACTS_KEY_ENV]: 'sk-facts-test',
    });
    expect(withFacts.code).toBe(0);
    const result = withFacts.json();
    expect(result.facts).toEqual({ facts: 1, failedSessions: 0 });
    expect(result.overall.recall.keyword.at5).toBe(1);
    // One call for the one session, with the extractor's prompt, the model and the key from the env.
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent.path).toMatch(/\/chat\/completions$/);
    expect(sent.headers.authorization).toBe('Bearer sk-facts-test');
    expect(sent.body.model).toBe('fact-model-1');
    expect(sent.body.max_tokens).toBe(2000);
    expect(sent.body.messages[0]).toEqual({ role: 'system', content: FACT_SYSTEM_PROMPT });
    expect(sent.body.messages[1].content).toContain('[D1:3] Ana: My brother accepted the offer');
    expect(withFacts.io.stderr()).toContain('facts: fact-model-1 at');
  });

  it('runs the bench without facts from a session whose answer passed the size bound', async () => {
    const huge = { kind: 'answer' as const, content: 'x'.repeat((1 << 20) + 10) };
    fake.script(huge, huge);
    const run = await bench(['--facts-url', fake.baseURL, '--facts-model', 'm']);
    expect(run.code).toBe(0);
    const facts = run.json().facts;
    expect(facts).toMatchObject({ facts: 0, failedSessions: 1 });
    expect(facts.firstError).toMatch(/1048576 bytes/);
  });

  it('gives up on a model that does not answer within --facts-timeout-ms', async () => {
    fake.script({ kind: 'hang' }, { kind: 'hang' });
    const started = Date.now();
    const run = await bench(['--facts-url', fake.baseURL, '--facts-model', 'm', '--facts-timeout-ms', '300']);
    expect(run.code).toBe(0);
    expect(run.json().facts.firstError).toMatch(/300 ms/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it.each([
    [['--facts-url', 'not a url', '--facts-model', 'm'], '--facts-url: not a URL'],
    [['--facts-url', 'ftp://127.0.0.1/v1', '--facts-model', 'm'], '--facts-url: must be http(s)'],
    [
      ['--facts-url', 'http://u:p@127.0.0.1/v1', '--facts-model', 'm'],
      '--facts-url: must not hold credentials',
    ],
    [['--facts-url', 'http://127.0.0.1:9/v1'], '--facts-model: missing'],
    [['--facts-model', 'm'], '--facts-url: missing'],
    [
      ['--facts-url', 'http://127.0.0.1:9/v1', '--facts-model', 'm', '--loco'],
      '--loco: the weight selection',
    ],
    [
      ['--facts-url', 'http://127.0.0.1:9/v1', '--facts-model', 'm', '--facts-timeout-ms', '0'],
      '--facts-timeout-ms',
    ],
  ])('exits 2 with one line naming the option when given %j', async (extra, message) => {
    const run = await bench(extra);
    expect(run.code).toBe(2);
    const err = run.io.stderr().trim();
    expect(err).toContain(message);
    expect(err.split('\n')).toHaveLength(1);
    expect(err).not.toMatch(/\n\s+at /);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('parseFactsModel', () => {
  it('is undefined without --facts-url and --facts-model, and takes the key only from the environment', () => {
    expect(parseFactsModel({}, { [FACTS_KEY_ENV]: 'k' })).toBeUndefined();
    expect(
      parseFactsModel({ url: 'http://127.0.0.1:1/v1/', model: ' m ' }, { [FACTS_KEY_ENV]: 'k' }),
    ).toEqual({
      baseURL: 'http://127.0.0.1:1/v1',
      model: 'm',
      timeoutMs: 60_000,
      apiKey: 'k',
    });
  });
});
