/// <reference types="@cloudflare/workers-types" />
/**
 * The bindings and variables the Worker receives (see `wrangler.toml`). Secrets for the summarizer
 * (`CTXKIT_SUMMARIZER_*`) arrive the same way and are read by `summarizerConfigFromEnv`.
 */

export interface Env {
  DB: D1Database;
  /** Typed at the call site (`session/stub.ts`). */
  SESSIONS: DurableObjectNamespace;
  BLOBS: R2Bucket;
  /** Largest accepted request body in bytes. @default "1048576" */
  MAX_BODY_BYTES?: string;
  /** Preset for sessions that do not name one. @default "default" */
  DEFAULT_PRESET?: string;
  /** Idle days after which the clean-up cron deletes a session. @default "30" */
  SESSION_IDLE_DAYS?: string;
  /** Days after which spilled outputs are deleted. @default "7" */
  BLOB_RETENTION_DAYS?: string;
  /** Workers AI (`[ai] binding = "AI"`), optional: vectors for memory search. */
  AI?: unknown;
  /** Workers AI embedding model. @default "@cf/baai/bge-small-en-v1.5" */
  EMBEDDING_MODEL?: string;
  /**
   * Secret (`wrangler secret put ADMIN_TOKEN`) for the operator routes `/v1/admin/*`, sent as
   * `Authorization: Bearer <ADMIN_TOKEN>`. Unset or empty → those routes answer 404. @default unset
   */
  ADMIN_TOKEN?: string;
  /** Any other variable or secret (summarizer configuration). */
  [key: string]: unknown;
}
