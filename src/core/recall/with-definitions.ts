/**
 * The tools the budget counts when recall is on: the caller's, and the recall definitions not among
 * them (by name). Kept apart from the definitions themselves, so that `createPipeline` carries only this.
 */
/** The name of a tool definition in any of the shapes callers pass (`name`, OpenAI's `function.name`). */
export function toolDefinitionName(tool: unknown): string | undefined {
  if (typeof tool !== 'object' || tool === null) return undefined;
  const t = tool as { name?: unknown; function?: { name?: unknown } };
  if (typeof t.name === 'string') return t.name;
  return typeof t.function?.name === 'string' ? t.function.name : undefined;
}

/**
 * `tools` with the recall definitions that are not already there (by name): what the budget counts
 * when recall is on, whether or not the caller passed them itself.
 */
export function withRecallDefinitions(
  tools: readonly unknown[] | undefined,
  definitions: readonly { name: string }[],
): unknown[] {
  const have = new Set((tools ?? []).map(toolDefinitionName));
  const missing = definitions.filter((d) => !have.has(d.name));
  return missing.length === 0 ? [...(tools ?? [])] : [...(tools ?? []), ...missing];
}
