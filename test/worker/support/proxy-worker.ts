/**
 * The proxy tests' common setup: a local fake provider, workerd pointed at it, a key for one tenant;
 * the fake's record emptied before each test, both stopped after the file. Call it at the top of a file
 * (or inside a `describe`); `ready` receives the three once they run.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../support/fake-provider-server.ts';
import { type RunningWorker, startWorker } from './harness.ts';

export interface ProxyWorker {
  w: RunningWorker;
  fake: FakeProvider;
  key: string;
}

/** The provider key the service holds in most proxy tests (a secret the scrub tests look for). */
export const ENV_OPENAI_KEY = 'sk-env-secret-0123456789abcdef';

export function useProxyWorker(
  tenant: string,
  bindings: (fake: FakeProvider) => Record<string, string>,
  ready: (running: ProxyWorker) => void,
): void {
  let running: Partial<ProxyWorker> = {};
  beforeAll(async () => {
    const fake = await startFakeProvider({ port: 0 });
    running.fake = fake;
    const w = await startWorker({
      bindings: {
        UPSTREAM_OPENAI_BASE_URL: fake.openaiBase,
        UPSTREAM_ANTHROPIC_BASE_URL: fake.anthropicBase,
        UPSTREAM_OPENAI_API_KEY: ENV_OPENAI_KEY,
        ...bindings(fake),
      },
    });
    running.w = w;
    running.key = await w.createKey(tenant);
    ready(running as ProxyWorker);
  });
  afterAll(async () => {
    await running.w?.dispose();
    await running.fake?.close();
    running = {};
  });
  beforeEach(() => running.fake?.reset());
}
