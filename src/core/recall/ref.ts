/**
 * Refs: the content addresses of what left the context. A stub or summary ctxkit writes carries the
 * ref of what it stands for, and `reread(ref)` answers with that original. A message's ref is taken of
 * its content (the core's message digest), so the same content always has the same ref and a ref never
 * names two different things in practice (48 bits); a summary's ref is taken of the refs of the
 * messages it folds, in order. Pure and synchronous: a stage computes the ref it writes, and the layer
 * that archives the run computes the same one from the journal.
 */
import { hashText, messageDigest } from '../messages/digest.ts';
import type { Message } from '../messages/types.ts';

/** A message's ref: `m` and 12 hex digits of its content digest. */
export function contentRef(message: Message): string {
  return `m${messageDigest(message).slice(0, 12)}`;
}

/** The ref of a span of messages (what one summary folds): `s` and 12 hex digits over their refs. */
export function spanRef(messages: readonly Message[]): string {
  return `s${hashText(messages.map(contentRef).join(',')).slice(0, 12)}`;
}

const REF = /^[ms][0-9a-f]{12}$/;

/** Whether `text` has the shape of a ref ctxkit writes. */
export function isRef(text: string): boolean {
  return REF.test(text);
}

/** How a stub or summary tells the model to get the original back, in the tool's own terms. */
export function rereadHint(ref: string): string {
  return `reread('${ref}')`;
}
