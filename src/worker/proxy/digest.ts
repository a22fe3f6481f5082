/**
 * Where the proxy keeps a logged message's content digest (the digest itself is the core's
 * `messageDigest`, shared with every other place that matches a history against what it has seen).
 */
import type { Message } from '../../core/index.ts';

export { canonicalMessage, hashText, messageDigest } from '../../core/index.ts';

/** Where a logged message keeps its digest. */
export const DIGEST_META = 'proxyDigest';

/** The digest a logged message carries, if it came through the proxy. */
export function storedDigest(m: Message): string | undefined {
  const d = m.meta?.[DIGEST_META];
  return typeof d === 'string' ? d : undefined;
}

export function withDigest(m: Message, digest: string): Message {
  return { ...m, meta: { ...m.meta, [DIGEST_META]: digest } };
}
