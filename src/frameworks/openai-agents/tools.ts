/**
 * The JSON definitions of an Agents SDK agent's tools, to count in the estimate. The SDK has already
 * turned a zod (or JSON Schema) `parameters` into the JSON Schema it sends (`FunctionTool.parameters`),
 * so a function tool counts as `{ name, description, parameters }`; a hosted or other tool counts as its
 * JSON-safe fields (its functions dropped). Handoffs and MCP tools the runner adds at run time are not
 * on `agent.tools` and are not counted.
 */
import type { JsonValue } from '../../core/index.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function definitionOf(tool: unknown): unknown {
  if (!isObj(tool)) return {};
  if (tool.type === 'function')
    return { name: tool.name, description: tool.description, parameters: tool.parameters };
  return Object.fromEntries(Object.entries(tool).filter(([, v]) => typeof v !== 'function'));
}

/** `[{ name, description, parameters }]` for every tool, JSON-safe. */
export function agentToolDefinitions(tools: readonly unknown[] | undefined): JsonValue[] {
  return (tools ?? []).map((t) => {
    try {
      return JSON.parse(JSON.stringify(definitionOf(t))) as JsonValue;
    } catch {
      return {};
    }
  });
}
