/**
 * The JSON definitions of the tools a LangChain model call is bound to (`request.tools` in
 * `wrapModelCall`), to count in the estimate: LangChain tools hold zod (3 or 4), Standard Schema or JSON
 * Schema input schemas, which LangChain's own `toJsonSchema` turns into the JSON the provider is sent.
 * An OpenAI-style tool dict gives its `function`; a provider's server tool (`{ type: 'web_search' }`…)
 * counts as itself. A schema that cannot be converted counts as `{}`.
 */
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import type { JsonValue } from '../../core/index.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function parametersOf(schema: unknown): unknown {
  if (!isObj(schema)) return {};
  try {
    return toJsonSchema(schema as Parameters<typeof toJsonSchema>[0]);
  } catch {
    return {};
  }
}

function definitionOf(tool: unknown): unknown {
  if (!isObj(tool)) return {};
  if (typeof tool.name === 'string' && 'schema' in tool)
    return {
      name: tool.name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      parameters: parametersOf(tool.schema),
    };
  if (tool.type === 'function' && isObj(tool.function)) return tool.function;
  return tool;
}

/** `[{ name, description, parameters }]` for every tool, JSON-safe. */
export function langChainToolDefinitions(tools: readonly unknown[] | undefined): JsonValue[] {
  return (tools ?? []).map((t) => {
    try {
      return JSON.parse(JSON.stringify(definitionOf(t))) as JsonValue;
    } catch {
      return {};
    }
  });
}
