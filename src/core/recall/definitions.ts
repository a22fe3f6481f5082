/**
 * The recall tools as the model sees them: names, one-line descriptions and JSON-Schema parameters,
 * short so that they cost few tokens of every request (the budget counts them when recall is on).
 */

export type RecallToolName = 'recall' | 'reread' | 'remember';
export const RECALL_TOOL_NAMES: readonly RecallToolName[] = ['recall', 'reread', 'remember'];

/** A provider-neutral function tool: what every framework's tool helper and the adapters take. */
export interface RecallToolDefinition {
  name: RecallToolName;
  description: string;
  parameters: {
    type: 'object';
    properties: Record<string, { type: 'string' | 'integer'; description: string; minimum?: number }>;
    required: string[];
    additionalProperties: false;
  };
}

export const RECALL_TOOL_DEFINITIONS: Readonly<Record<RecallToolName, RecallToolDefinition>> = {
  recall: {
    name: 'recall',
    description:
      'Search earlier parts of this conversation that were cleared or summarized from your context, and saved memories. Newest first; each hit names a ref for reread.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words, names or ids to look for' },
        limit: { type: 'integer', description: 'Most hits (default 8)', minimum: 1 },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
  reread: {
    name: 'reread',
    description:
      "Get back the full original of something cleared or summarized, by the ref its note shows: reread('m…') or reread('s…').",
    parameters: {
      type: 'object',
      properties: {
        ref: { type: 'string', description: 'The ref, e.g. m0123456789ab' },
        offset: { type: 'integer', description: 'Character to continue from', minimum: 0 },
      },
      required: ['ref'],
      additionalProperties: false,
    },
  },
  remember: {
    name: 'remember',
    description: 'Save a fact worth keeping beyond this conversation.',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The fact, self-contained' } },
      required: ['text'],
      additionalProperties: false,
    },
  },
};
