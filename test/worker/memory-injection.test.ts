import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  w = await startWorker();
  api = client(w, await w.createKey('acme'));
});
afterAll(async () => {
  await w?.dispose();
});

const say = (text: string) => ({ format: 'openai', messages: [{ role: 'user', content: text }] });
// A right-to-left override, a NUL and a line break inside another session's text.
const HOSTILE = 'kubernetes rollout \u202Eevil\u202C payload\u0000 with\nnewline';

async function systemOf(session: string): Promise<string> {
  const res = await api.post(`/v1/sessions/${session}/prepare`, {});
  expect(res.status).toBe(200);
  return res.body.system as string;
}

describe('memory injection from other sessions', () => {
  beforeAll(async () => {
    await api.post('/v1/sessions', { id: 'source', project: 'infra' });
    await api.post('/v1/sessions/source/messages', say(HOSTILE));
    await api.post('/v1/sessions', { id: 'elsewhere' });
    await api.post('/v1/sessions/elsewhere/messages', say('kubernetes rollout in another project'));
  });

  it('is off by default: a new session sees nothing of the others', async () => {
    await api.post('/v1/sessions', { id: 'plain', project: 'infra' });
    await api.post('/v1/sessions/plain/messages', say('how did the kubernetes rollout go?'));
    const system = await systemOf('plain');
    expect(system).not.toContain('Session Recall');
    expect(system).not.toContain('evil');
  });

  it('recalls the same project only when asked, sanitised', async () => {
    await api.post('/v1/sessions', { id: 'asks', project: 'infra', memory: { recall: 'project' } });
    await api.post('/v1/sessions/asks/messages', say('how did the kubernetes rollout go?'));
    const system = await systemOf('asks');
    expect(system).toContain('## Session Recall');
    expect(system).toContain('kubernetes rollout evil payload with newline');
    expect(system).not.toMatch(/[\u0000\u202A-\u202E]/);
    expect(system).not.toContain('another project');
  });

  it('gives a session without a project nothing from the tenant, even when asked', async () => {
    await api.post('/v1/sessions', { id: 'loose', memory: { recall: 'project' } });
    await api.post('/v1/sessions/loose/messages', say('how did the kubernetes rollout go?'));
    expect(await systemOf('loose')).not.toContain('Session Recall');
  });

  it('rejects unknown memory modes and out-of-range limits', async () => {
    expect((await api.post('/v1/sessions', { memory: { recall: 'tenant' } })).status).toBe(400);
    const res = await api.post('/v1/sessions', { memory: { recall: 'project', recallLimit: 1000 } });
    expect(res.status).toBe(400);
    expect(res.body.error.path).toBe('memory.recallLimit');
  });
});

describe('daily memory labels', () => {
  async function dailyFlushText(preset: string, tenant: string): Promise<string> {
    const other = client(w, await w.createKey(tenant));
    await other.post('/v1/sessions', { id: 'd', preset });
    await other.post('/v1/sessions/d/messages', {
      format: 'openai',
      messages: [
        { role: 'user', content: 'Please deploy the billing service' },
        { role: 'assistant', content: 'Deployed billing.' },
      ],
    });
    const worker = await w.mf.getWorker();
    expect((await worker.scheduled({ cron: '55 23 * * *', scheduledTime: new Date() })).outcome).toBe('ok');
    const docs = (await other.get('/v1/memory-documents?prefix=memory/')).body.documents;
    return docs[0].content as string;
  }

  it('are English for the default preset', async () => {
    const text = await dailyFlushText('default', 'labels-en');
    expect(text).toContain('- User: Please deploy the billing service → Reply: Deployed billing.');
    expect(text).not.toContain('用户');
  });

  it("are CowAgent's for the cowagent preset", async () => {
    const text = await dailyFlushText('cowagent', 'labels-zh');
    expect(text).toContain('- 用户: Please deploy the billing service → 回复: Deployed billing.');
  });
});
