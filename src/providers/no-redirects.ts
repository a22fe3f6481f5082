/**
 * Provider calls never follow an HTTP redirect, as the proxy does not (src/worker/proxy/relay.ts): a
 * 3xx would carry the API key (`Authorization`) and the conversation to whatever host its `location`
 * names. The SDK gets a `fetch` that asks for `redirect: 'manual'`, so a 3xx comes back as the answer,
 * and the caller turns it into one `provider_error` naming the setting to fix.
 */
import type { Sdk } from './openai-loader.ts';
import type { OpenAIFetch } from './sdk-types.ts';

/** `inner` (default: the global `fetch`, looked up per call) with every request's `redirect: 'manual'`. */
export function noRedirects(inner?: OpenAIFetch): OpenAIFetch {
  return (input, init) => (inner ?? fetch)(input, { ...init, redirect: 'manual' });
}

/**
 * When `error` is the SDK's error for a 3xx answer: what happened and what to set, for a
 * `provider_error` (`setting` names the base URL option, e.g. `baseURL (CTXKIT_LLM_BASE_URL)`).
 */
export function redirectRefused(sdk: Sdk, error: unknown, setting: string): string | undefined {
  if (!(error instanceof sdk.APIError)) return undefined;
  const status = error.status;
  if (status === undefined || status < 300 || status > 399) return undefined;
  const location = error.headers?.get('location');
  return (
    `HTTP ${status} redirect${location ? ` to ${location.slice(0, 500)}` : ''}: not followed (it would send ` +
    `the API key and the request to another address); set ${setting} to the address that answers`
  );
}
