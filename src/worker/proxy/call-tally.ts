/**
 * What a proxied call cost the tenant, counted in its tally (`GET /v1/usage`, limits/token-tally.ts)
 * where the upstream's usage becomes known — not where the answer is logged: a stateless call, a call
 * whose turn could not be stored, a call the client left and a stream cut after its usage arrived were
 * all paid for. Each call is counted once, by its id: the tenant object drops a replay, so a call whose
 * first count went unanswered is sent again (`TALLY_ATTEMPTS`) without being counted twice.
 */
import type { Usage } from '../../core/index.ts';
import type { Env } from '../env.ts';
import { limitsBound } from '../limits/limit-config.ts';
import { tenantStub } from '../limits/tenant-stub.ts';
import { callUsage, type RoundUsage } from './round-usage.ts';

/** Sends of one call's count to the tenant object before it is given up (logged). @default 2 */
export const TALLY_ATTEMPTS = 2;

/** Counts call `callId`'s usage in the tenant's tally, once however often it is sent. */
export type Tally = (callId: string, usage: Usage) => Promise<void>;

/** The tenant's tally; undefined when the deployment keeps no tenant limits (no `TENANTS` binding). */
export function tenantTally(env: Env, tenant: string): Tally | undefined {
  if (!limitsBound(env)) return undefined;
  return async (callId, usage) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await tenantStub(env, tenant).tally(callId, usage);
        return;
      } catch (error) {
        if (attempt >= TALLY_ATTEMPTS) throw error;
      }
    }
  };
}

export interface PaidCall {
  callId: string;
  tally?: Tally | undefined;
  /** The proxy's tool rounds before the answer (tool-loop.ts), each paid for. */
  spent?: readonly RoundUsage[] | undefined;
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * Counts what the call's upstream calls reported — its rounds' and `reported`, the final answer's
 * (absent: the call ended without one) — in the background; nothing when none reported a valid usage.
 */
export function countPaid(call: PaidCall, reported: Usage | undefined): void {
  const usage = callUsage(call.spent ?? [], reported);
  if (!usage || !call.tally) return;
  call.waitUntil(
    call.tally(call.callId, usage).catch((error: unknown) => {
      console.error(`ctxkit proxy: counting the usage of call ${call.callId} failed:`, error);
    }),
  );
}
