/**
 * Resume a stored session: the session, its state and the messages the agent should see, either
 * the live working context or a preset's restore-after-restart rule (000 §1.11, 002 §4.10).
 */
import type { Message } from '../messages/types.ts';
import { restoreCowAgent, restoreKosmoKrator } from './restore.ts';
import type { SessionInfo, SessionState, SessionStore } from './session-store.ts';
import { resolveWorkingContext } from './working-context.ts';

export type RestoreMode = 'working' | 'cowagent' | 'kosmokrator';

export interface ResumeOptions {
  /** `working`: exactly what the agent saw; `cowagent` / `kosmokrator`: that preset's restore. @default 'working' */
  mode?: RestoreMode;
  /** For `cowagent`: `agent_max_context_turns`. @default 20 */
  maxContextTurns?: number;
}

export interface ResumedSession {
  session: SessionInfo;
  state: SessionState;
  messages: Message[];
}

export async function resumeSession(
  store: SessionStore,
  tenant: string,
  id: string,
  options: ResumeOptions = {},
): Promise<ResumedSession | undefined> {
  const session = await store.get(tenant, id);
  if (!session) return undefined;
  const state = await store.getState(tenant, id);
  const rows = await store.messages(tenant, id);
  const mode = options.mode ?? 'working';
  let messages: Message[];
  if (mode === 'cowagent')
    messages = restoreCowAgent(
      rows.map((r) => r.message),
      options.maxContextTurns === undefined ? {} : { maxContextTurns: options.maxContextTurns },
    );
  else if (mode === 'kosmokrator') messages = restoreKosmoKrator(rows, state.working);
  else messages = resolveWorkingContext(rows, state.working);
  return { session, state, messages };
}
