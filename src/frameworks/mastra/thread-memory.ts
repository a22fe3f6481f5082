/**
 * Where a Mastra processor finds the thread and its memory. An agent run with memory (`memory: {
 * thread, resource }`) puts them in the request context every processor is handed, under
 * `MastraMemory` (Mastra's documented memory context for processors): the thread (with its id) and
 * `runState()`, the run's memory state, which holds the memory object (Mastra marks it internal, so a
 * `memory` option given by the user comes first).
 */
import type { MastraMemory, MemoryRequestContext } from '@mastra/core/memory';
import type { Processor } from '@mastra/core/processors';

export type HookContext = Pick<Parameters<NonNullable<Processor['processLLMRequest']>>[0], 'requestContext'>;

const memoryContext = ({ requestContext }: HookContext) =>
  requestContext?.get('MastraMemory') as MemoryRequestContext | undefined;

/** The thread Mastra put in the request context for an agent run with memory (`memory: { thread, resource }`). */
export function threadOf(hook: HookContext): string | undefined {
  const id = memoryContext(hook)?.thread?.id;
  return typeof id === 'string' ? id : undefined;
}

const isMemory = (m: unknown): m is MastraMemory =>
  typeof (m as MastraMemory | undefined)?.getThreadById === 'function' &&
  typeof (m as MastraMemory | undefined)?.updateThread === 'function';

/** The memory of the run: the `memory` option, else the one in Mastra's run state for the request. */
export function memoryOf(hook: HookContext, own: MastraMemory | undefined): MastraMemory | undefined {
  if (own) return own;
  const runState = memoryContext(hook)?.runState;
  const memory = typeof runState === 'function' ? runState()?.memory : undefined;
  return isMemory(memory) ? memory : undefined;
}
