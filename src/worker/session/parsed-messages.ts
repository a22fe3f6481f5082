import type { Message } from '../../core/index.ts';

/** Incoming messages in neutral form; `autoId[i]` says whether message i needs an id from the session. */
export interface ParsedMessages {
  messages: Message[];
  autoId: boolean[];
}
