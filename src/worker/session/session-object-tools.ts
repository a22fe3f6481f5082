/**
 * The recall tools of a session's Durable Object (session-recall.ts): `recall`, `reread` and
 * `remember` as the model calls them (the proxy's tool loop) and as the routes ask for them
 * (`/v1/sessions/:id/recall`, `/reread`, `/remember`). Reads are not queued behind the session's writes;
 * `remember` writes the tenant's memory store only (never the session's log or state). A session that
 * does not exist is a 404, like every other session route.
 */
import { type ArchivedMessage, CtxError, type RecallTools } from '../../core/index.ts';
import { SETTINGS, SessionObjectBase } from './session-object-base.ts';
import type { SessionSettings } from './settings.ts';
import { type Outcome, outcome, type SessionKey } from './wire.ts';

/** A search hit as the recall route lists it (the text is in `text`, as the model would read it). */
export interface RecallHit {
  ref: string;
  span: string | null;
  messageId: string;
  role: ArchivedMessage['role'];
  action: ArchivedMessage['action'];
  stage: string;
  at: number;
}

export abstract class SessionToolsBase extends SessionObjectBase {
  /** The session's recall tools, once it is known to exist. */
  protected async recallTools(key: SessionKey): Promise<RecallTools> {
    const deps = await this.deps(key);
    if (!(await deps.sessions.get(key.tenant, key.session)))
      throw new CtxError('not_found', `session ${key.session} not found`, { path: 'params.session' });
    const tools = deps.pipeline.recall;
    if (!tools)
      throw new CtxError(
        'conflict',
        `session ${key.session} keeps no recall archive: create it with settings.recall true (the proxy does when called with x-ctxkit-tools)`,
        { path: 'settings.recall' },
      );
    return tools;
  }

  /**
   * Turns recall on for the session from now on (the proxy, called with `x-ctxkit-tools` on a session
   * made without it): the setting is stored and the pipeline rebuilt, queued behind the session's
   * writes. A session that does not exist is left to the call's own turn, which creates it with recall.
   */
  async useRecall(key: SessionKey): Promise<Outcome<{ recall: boolean }>> {
    return outcome(async () => {
      const settings = await this.settings();
      if (settings.recall === true) return { recall: true };
      return this.serial(async () => {
        if (!(await this.storePorts(key).sessions.get(key.tenant, key.session))) return { recall: false };
        const next: SessionSettings = { ...(await this.settings()), recall: true };
        await this.ctx.storage.put(SETTINGS, next);
        this.cachedSettings = next;
        this.usePipeline(next, key);
        return { recall: true };
      });
    });
  }

  /** One call as the model made it (the proxy's tool loop): the text the model reads. */
  async recallTool(key: SessionKey, input: { name: string; args: unknown }): Promise<Outcome<string>> {
    return outcome(async () => (await this.recallTools(key)).call(input.name, input.args));
  }

  async recallSearch(
    key: SessionKey,
    input: { query: string; limit?: number | undefined },
  ): Promise<Outcome<{ text: string; hits: RecallHit[] }>> {
    return outcome(async () => {
      const tools = await this.recallTools(key);
      const limit = input.limit ?? 8;
      const found = await tools.archive.search(input.query, { limit });
      const text = await tools.recall({ query: input.query, limit });
      const hits = found.map((m) => ({
        ref: m.ref,
        span: m.span ?? null,
        messageId: m.messageId,
        role: m.role,
        action: m.action,
        stage: m.stage,
        at: m.at,
      }));
      return { text, hits };
    });
  }

  async recallReread(
    key: SessionKey,
    input: { ref: string; offset?: number | undefined },
  ): Promise<Outcome<{ ref: string; messages: number; text: string }>> {
    return outcome(async () => {
      const tools = await this.recallTools(key);
      const items = await tools.archive.get(input.ref);
      if (items.length === 0)
        throw new CtxError('not_found', `ref ${input.ref} is not in this session's archive`, {
          path: 'ref',
        });
      const text = await tools.reread({
        ref: input.ref,
        ...(input.offset !== undefined ? { offset: input.offset } : {}),
      });
      return { ref: input.ref, messages: items.length, text };
    });
  }

  async recallRemember(key: SessionKey, input: { text: string }): Promise<Outcome<{ text: string }>> {
    return outcome(async () => ({ text: await (await this.recallTools(key)).remember(input) }));
  }
}
