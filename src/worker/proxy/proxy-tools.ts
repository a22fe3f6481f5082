/**
 * The recall tools the proxy answers itself, when the client opts in with `x-ctxkit-tools`: their
 * definitions go into the request in the client's dialect (and into what the budget counts), and a
 * round whose calls all name them is answered by the proxy (tool-loop.ts). The header takes `on` (every
 * tool) or a list (`recall,reread`); a call without a session, a value that names no tool, or a request
 * that already defines a tool of the same name is a 400 naming the header or the field.
 */
import {
  CtxError,
  type JsonValue,
  RECALL_TOOL_DEFINITIONS,
  RECALL_TOOL_NAMES,
  type RecallToolDefinition,
  type RecallToolName,
  toolDefinitionName,
} from '../../core/index.ts';
import type { Env } from '../env.ts';
import type { Protocol, ProxyRequest } from './protocol.ts';

/** @default 4 rounds answered by the proxy per call (`PROXY_TOOL_ROUNDS`, 1–16) */
export const DEFAULT_TOOL_ROUNDS = 4;

export const TOOLS_HEADER = 'x-ctxkit-tools';

/** The tools `x-ctxkit-tools` turns on; `undefined` when the header is absent or `off`. */
export function proxyToolNames(headers: Headers, session: string | undefined): RecallToolName[] | undefined {
  const raw = headers.get(TOOLS_HEADER);
  if (raw === null || raw.trim() === 'off') return undefined;
  const path = `headers.${TOOLS_HEADER}`;
  const value = raw.trim();
  const names =
    value === 'on' ? [...RECALL_TOOL_NAMES] : value.split(',').map((n) => n.trim() as RecallToolName);
  for (const n of names)
    if (!RECALL_TOOL_NAMES.includes(n))
      throw new CtxError(
        'invalid_input',
        `must be on, off or a list of ${RECALL_TOOL_NAMES.join(', ')} (got ${JSON.stringify(n.slice(0, 40))})`,
        { path },
      );
  if (session === undefined)
    throw new CtxError('invalid_input', 'needs x-ctxkit-session: the tools read that session’s archive', {
      path,
    });
  return [...new Set(names)];
}

/** One tool definition in `dialect`'s own shape. */
export function dialectTool(dialect: Protocol['dialect'], d: RecallToolDefinition): JsonValue {
  const parameters = d.parameters as unknown as JsonValue;
  if (dialect === 'anthropic') return { name: d.name, description: d.description, input_schema: parameters };
  if (dialect === 'responses')
    return { type: 'function', name: d.name, description: d.description, parameters, strict: false };
  return { type: 'function', function: { name: d.name, description: d.description, parameters } };
}

/** `request` with the tools' definitions after the client's own (a name already there is a 400). */
export function withProxyTools(
  request: ProxyRequest,
  dialect: Protocol['dialect'],
  names: readonly RecallToolName[],
): ProxyRequest {
  const n = request.body.n;
  if (dialect === 'openai' && typeof n === 'number' && n > 1)
    throw new CtxError(
      'invalid_input',
      `must be 1 with ${TOOLS_HEADER}: the proxy answers one choice's calls`,
      {
        path: 'n',
      },
    );
  const own = request.tools ?? [];
  own.forEach((t, i) => {
    const name = toolDefinitionName(t);
    if (name !== undefined && (names as readonly string[]).includes(name))
      throw new CtxError(
        'invalid_input',
        `defines a tool named ${name}, which ${TOOLS_HEADER} asks the proxy to answer; rename it or leave ${name} out of the header`,
        { path: `tools[${i}]` },
      );
  });
  const tools = [...own, ...names.map((n) => dialectTool(dialect, RECALL_TOOL_DEFINITIONS[n]))];
  return { ...request, tools, body: { ...request.body, tools } };
}

/** `request` for a last round: no tool may be called (`tool_choice` none), so the model answers. */
export function answerNow(request: ProxyRequest, dialect: Protocol['dialect']): ProxyRequest {
  const choice = dialect === 'anthropic' ? { type: 'none' } : 'none';
  return { ...request, body: { ...request.body, tool_choice: choice } };
}

/** `PROXY_TOOL_ROUNDS`, checked: rounds the proxy answers per call (1–16). @default 4 */
export function proxyToolRounds(env: Env): number {
  const raw = env.PROXY_TOOL_ROUNDS;
  if (raw === undefined || raw === '') return DEFAULT_TOOL_ROUNDS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 16)
    throw new CtxError('invalid_config', 'must be an integer from 1 to 16', { path: 'PROXY_TOOL_ROUNDS' });
  return n;
}
