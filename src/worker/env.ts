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
  /**
   * Drop-in proxy upstreams (src/worker/proxy): base URLs from configuration only; `off` or empty
   * turns one off (404). @default "https://api.openai.com/v1" and "https://api.anthropic.com"
   */
  UPSTREAM_OPENAI_BASE_URL?: string;
  UPSTREAM_ANTHROPIC_BASE_URL?: string;
  /** Secrets: the upstream keys, unless a request sends its own `x-upstream-api-key`. @default unset */
  UPSTREAM_OPENAI_API_KEY?: string;
  UPSTREAM_ANTHROPIC_API_KEY?: string;
  /** Largest accepted proxy request body in bytes (a whole agent history). @default "33554432" */
  PROXY_MAX_BODY_BYTES?: string;
  /** Rounds of recall-tool calls the proxy answers per call (`x-ctxkit-tools`), 1–16. @default "4" */
  PROXY_TOOL_ROUNDS?: string;
  /** Tokens one answer of the recall tools may take (routes and proxy), 50–16000. @default "2000" */
  RECALL_MAX_TOKENS?: string;
  /** `1`: proxy answers carry a `server-timing` header with per-phase timings (bench:proxy). @default unset */
  PROXY_TIMING?: string;
  /** Rate limiting bindings (`[[ratelimits]]`): requests per minute per API key and per tenant. @default unbound (off) */
  KEY_LIMITER?: unknown;
  TENANT_LIMITER?: unknown;
  /**
   * The tenant's Durable Object (`TenantObject`): calls in flight, stored bytes, sessions. Unbound: those
   * limits are off. Their variables, each bounded (src/worker/limits/limit-config.ts):
   * `MAX_IN_FLIGHT_PER_SESSION` @default "16", `MAX_IN_FLIGHT_PER_TENANT` @default "256",
   * `IN_FLIGHT_LEASE_SECONDS` @default "900", `MAX_STORED_BYTES_PER_TENANT` @default "1073741824",
   * `STORED_BYTES_RECOUNT_SECONDS` @default "60", `MAX_SESSIONS_PER_TENANT` @default "100000".
   */
  TENANTS?: DurableObjectNamespace;
  MAX_IN_FLIGHT_PER_SESSION?: string;
  MAX_IN_FLIGHT_PER_TENANT?: string;
  IN_FLIGHT_LEASE_SECONDS?: string;
  MAX_STORED_BYTES_PER_TENANT?: string;
  STORED_BYTES_RECOUNT_SECONDS?: string;
  MAX_SESSIONS_PER_TENANT?: string;
  /**
   * How far the memories ctxkit extracts on its own (compaction) reach: `session`, `project` or
   * `tenant`; what came from tool output stays with its session whatever this says. @default "session"
   */
  MEMORY_EXTRACTED_REACH?: string;
  /** Any other variable or secret (summarizer configuration). */
  [key: string]: unknown;
}
