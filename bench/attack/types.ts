/**
 * One case of the attack suite (`npm run bench:attack`): something an attacker, a careless client or a
 * misbehaving provider does to the running service, and whether the service's promise held.
 */
import type { FakeProvider } from '../../test/support/fake-provider-server.ts';
import type { RunningService } from '../support/start-service.ts';

export interface AttackEnv {
  service: RunningService;
  /** The local provider every upstream points at; `fake.reset()` before scripting it. */
  fake: FakeProvider;
  /** The operator token the service was started with (`ADMIN_TOKEN`). */
  adminToken: string;
  /** The provider key the service holds as its secret (`UPSTREAM_*_API_KEY`): it must never reach a client. */
  providerKey: string;
  /** Bearer auth with the development key, JSON, and `x-ctxkit-session` when a session is given. */
  headers(session?: string): Record<string, string>;
  /** A fresh id with this prefix (sessions, keys), unique within the run. */
  id(prefix: string): string;
}

export interface AttackResult {
  held: boolean;
  /** What was measured, in one line: the figure a reader checks against the promise. */
  detail: string;
}

export interface AttackCase {
  name: string;
  /** The promise it tests, in one line (docs/service.md's wording where it has one). */
  promise: string;
  /** Runs in seconds and leaves the service usable: also run by `npm test` (test/worker/attack-fast.test.ts). */
  fast?: boolean;
  /** Restarts or kills the service: run after the others. */
  disruptive?: boolean;
  /**
   * Bindings the case needs the service started with (a short timeout, a small bound); merged over
   * the suite's for the whole run, so they must not change what another case measures.
   */
  vars?: Record<string, string>;
  /** Needs the test build's fault points (`npm start -- --test-faults`, src/worker/test-faults.ts). */
  testFaults?: boolean;
  run(env: AttackEnv): Promise<AttackResult>;
}
