/** Loads the token-estimation corpus: `manifest.json` lists `{ file, category }` entries. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { CtxError } from '../../core/index.ts';

export interface CorpusFile {
  file: string;
  category: string;
  text: string;
  /** UTF-8 size. */
  bytes: number;
}

/** The category of texts unlike the calibration set, never used for fitting. */
export const UNSEEN_CATEGORY = 'tokenx-fixtures';

const manifestSchema = z.array(z.object({ file: z.string().min(1), category: z.string().min(1) }).loose());

const encoder = new TextEncoder();

/** A corpus entry for `text` (its UTF-8 size measured). */
export function corpusFile(file: string, category: string, text: string): CorpusFile {
  return { file, category, text, bytes: encoder.encode(text).length };
}

export async function loadTokenCorpus(dir: string): Promise<CorpusFile[]> {
  let raw: string;
  try {
    raw = await readFile(join(dir, 'manifest.json'), 'utf8');
  } catch (cause) {
    throw new CtxError('invalid_input', `corpus: cannot read ${join(dir, 'manifest.json')}`, { cause });
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (cause) {
    throw new CtxError(
      'invalid_input',
      `corpus manifest.json: not valid JSON (${(cause as Error).message})`,
      {
        cause,
      },
    );
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CtxError('invalid_input', `corpus manifest.json[${issue?.path.join('.')}]: ${issue?.message}`);
  }
  const entries = [...parsed.data].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return Promise.all(
    entries.map(async (e) => {
      let text: string;
      try {
        text = await readFile(join(dir, e.file), 'utf8');
      } catch (cause) {
        const at = parsed.data.indexOf(e);
        throw new CtxError('invalid_input', `corpus manifest.json[${at}].file: cannot read ${e.file}`, {
          cause,
        });
      }
      return corpusFile(e.file, e.category, text);
    }),
  );
}
