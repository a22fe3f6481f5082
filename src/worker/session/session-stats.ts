/** 000's `/context` for the service: what the agent sees now and the full log, with tokens and level. */
import { type Message, messageText, type SessionInfo } from '../../core/index.ts';
import { load, type SessionDeps } from './session-service.ts';
import type { SessionKey } from './wire.ts';

export interface SessionStats {
  session: SessionInfo;
  /** 000 `/context`: what the agent sees now. */
  context: {
    messages: number;
    roles: Record<string, number>;
    characters: number;
    tokens: number;
    level: string;
    percentLeft: number;
    usable: number;
  };
  /** The full log, compacted rows included. */
  log: { messages: number; compacted: number; roles: Record<string, number>; characters: number };
  pendingInjections: number;
  compactionFailures: number;
}

function census(messages: readonly Message[]) {
  const roles: Record<string, number> = { system: 0, user: 0, assistant: 0, tool: 0 };
  let characters = 0;
  for (const m of messages) {
    roles[m.role] = (roles[m.role] ?? 0) + 1;
    characters += messageText(m).length;
  }
  return { messages: messages.length, roles, characters };
}

export async function sessionStats(deps: SessionDeps, key: SessionKey): Promise<SessionStats> {
  const loaded = await load(deps, key);
  const system = loaded.state.memoryBlock?.text;
  const estimate = deps.pipeline.estimate({ messages: loaded.messages, ...(system ? { system } : {}) });
  return {
    session: loaded.info,
    context: {
      ...census(loaded.messages),
      tokens: estimate.tokens,
      level: estimate.level,
      percentLeft: estimate.percentLeft,
      usable: estimate.usable,
    },
    log: {
      ...census(loaded.rows.map((r) => r.message)),
      compacted: loaded.rows.filter((r) => r.compacted).length,
    },
    pendingInjections: loaded.state.pipeline.pendingInjections.length,
    compactionFailures: loaded.state.pipeline.compactionFailures,
  };
}
