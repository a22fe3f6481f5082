import { describe, expect, it } from 'vitest';
import {
  assistant,
  CALIBRATED_PRESETS,
  CALIBRATED_WEIGHTS,
  createCalibratedCounter,
  createSessionCalibrator,
  extractTokenFeatures,
  image,
  packBits,
  packWeights,
  TOKEN_FEATURE_COUNT,
  TOKEN_FEATURE_NAMES,
  toolCall,
  toolResult,
  unpackBits,
  unpackWeights,
  user,
} from '../../src/core/index.ts';
import { createPipeline } from '../../src/core/pipeline/pipeline.ts';
import { CALIBRATED_UPPER, o200kWeights } from '../../src/core/tokens/calibrated/weights.ts';

function features(text: string): Record<string, number> {
  const v = extractTokenFeatures(text, new Float64Array(TOKEN_FEATURE_COUNT));
  const out: Record<string, number> = {};
  TOKEN_FEATURE_NAMES.forEach((name, i) => {
    if (v[i] !== 0) out[name] = v[i]!;
  });
  return out;
}

describe('extractTokenFeatures', () => {
  it('counts words, spaces, punctuation and newlines when given plain English', () => {
    expect(features('Hello, world!\nBye now')).toEqual({
      words: 4,
      wordChars: 16,
      spaces: 2,
      punct: 2,
      punctRuns: 2,
      punctAlone: 2,
      newlines: 1,
      newlineRuns: 1,
    });
  });

  it('counts punctuation runs followed by a letter apart when given paths and extensions', () => {
    const f = features('cd /usr/lib, ok.');
    expect(f.punctRuns).toBe(4);
    expect(f.punctAlone).toBe(2); // ', ' and the final '.'
  });

  it('counts CJK characters beyond the eighth of a run when given long CJK prose', () => {
    expect(features('中文字ひらがなカタカナ中文。中文 中文字ひらがな').cjkLong).toBe(16 - 8);
    expect(features('한국어 문장입니다 한국어 문장입니다').cjkLong).toBeUndefined();
  });

  it('splits camelCase switches, long words and digit groups when given code', () => {
    const f = features('parseHTTPResponse 1234567');
    expect(f.words).toBe(1);
    expect(f.caseSwitches).toBe(2);
    expect(f.longChars).toBe(17 - 6);
    expect(f.vlongChars).toBe(17 - 10);
    expect(f.digitRuns).toBe(1);
    expect(f.digitGroups).toBe(3);
  });

  it('counts indentation runs apart from single spaces when lines are indented', () => {
    const f = features('if x:\n        return 1\n\n\ny');
    expect(f.spaceRuns).toBe(1);
    expect(f.spaces).toBe(10);
    expect(f.newlines).toBe(4);
    expect(f.newlineRuns).toBe(2);
  });

  it('classifies each script when given CJK, Hangul, Cyrillic, Greek, Arabic, Devanagari and Bengali', () => {
    const f = features('中文字 ひらがな 한국어 Привет Ελλάδα مرحبا नमस्ते। বাংলা。');
    expect(f.han).toBe(3);
    expect(f.kana).toBe(4);
    expect(f.hangul).toBe(3);
    expect(f.cyrillic).toBe(6);
    expect(f.greek).toBe(6);
    expect(f.arabic).toBe(5);
    expect(f.indic).toBe(7); // with the danda
    expect(f.bengali).toBe(5);
    expect(f.indicWords).toBe(2);
    expect(f.cjkPunct).toBe(1);
  });

  it('classifies the edge cases of the range table when given NBSP, BOM, ×, Vietnamese and full-width forms', () => {
    expect(features('a\u00a0b')).toMatchObject({ words: 2, spaces: 1 });
    expect(features('\ufeff')).toEqual({});
    expect(features('2×3').symbols).toBe(1);
    expect(features('Việt')).toMatchObject({ words: 1, latinExtWords: 1 });
    expect(features('ﾊﾝ！')).toMatchObject({ kana: 2, kanaRuns: 1, cjkPunct: 1 });
    expect(features('\ue000').other).toBe(1);
  });

  it('counts one emoji per astral code point and its modifiers apart when given emoji', () => {
    const f = features('ok 👍🏽 ❤️ 👨‍👩‍👧');
    expect(f.emoji).toBe(5); // 👍 ❤ 👨 👩 👧
    expect(f.emojiMods).toBe(4); // skin tone, VS16, two ZWJ
  });

  it('marks hashes and base64 as high-entropy runs instead of words', () => {
    const hash = features('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hash.entropyRuns).toBe(1);
    expect(hash.entropyChars).toBe(64);
    expect(hash.mixedChars).toBeUndefined();
    expect(hash.words).toBeUndefined();
    const b64 = features('iVBORw0KGgoAAAANSUhEUgAABt4AAATqCAYAAADRdhVc');
    expect(b64.entropyRuns).toBe(1);
    expect(b64.mixedChars).toBe(44);
    expect(features('XMLHttpRequest getElementById').entropyRuns).toBeUndefined();
    // digit runs 1, 22, 333, 4444 inside a hash-like run: ceil(len / 3) each
    expect(features('a1b22c333d4444ef').entropyGroups).toBe(5);
  });

  it('counts letter pairs rare in English when given non-English words', () => {
    expect(features('the brown dog sat on the mat').rareBigrams).toBeUndefined();
    expect(features('Schreibtisch szczegółowy').rareBigrams).toBe(4); // sz, zc, cz, wy
  });

  it('treats \\r\\n like \\n when lines end in CRLF', () => {
    expect(features('a\r\nb')).toEqual(features('a\nb'));
  });

  it('fills the slot of every script feature when each script appears', () => {
    const f = features('שלום Բարեւ தமிழ் ไทย ქართ │ ሀ 𠀋 a/b');
    expect([
      f.hebrew,
      f.hebrewWords,
      f.armenian,
      f.brahmic,
      f.brahmicWords,
      f.southeast,
      f.southeastWords,
    ]).toEqual([4, 2, 5, 5, 1, 7, 2]);
    expect([f.symbols, f.other, f.han, f.hanRuns, f.punct]).toEqual([1, 1, 1, 1, 1]);
    expect(TOKEN_FEATURE_NAMES).toHaveLength(TOKEN_FEATURE_COUNT);
  });

  it('counts Cyrillic letters outside А–я apart, in the same word runs, when given Ukrainian', () => {
    const uk = features('Київ їжак ґанок');
    expect(uk.cyrillicExt).toBe(3); // ї ї ґ
    expect(uk.cyrillic).toBe(10);
    expect(uk.cyrillicWords).toBe(7); // Ки|ї|в, ї|жак, ґ|анок: split where the class changes
    const ru = features('Ёлка и еж');
    expect(ru.cyrillicExt).toBe(1); // Ё: rarer in the vocabularies than е
    expect(ru.cyrillicWords).toBe(4);
  });

  it('gives the same features whatever form the string has when concatenated, sliced or two-byte', () => {
    const base = 'const fooBar = readFile("src/a.ts");\n  // Привет, 世界 😀 déjà vu 0x1f2e3d4c5b6a\t';
    const flat = JSON.parse(JSON.stringify(base)) as string;
    const expected = features(flat);
    const forms = [
      base.slice(0, 20) + base.slice(20), // concatenated
      `xx${base}yy`.slice(2, -2), // sliced
      `${base}`.repeat(1),
      ['c', 'onst', base.slice(5)].join(''),
    ];
    for (const form of forms) expect(features(form)).toEqual(expected);
  });

  it('fills every slot with zero when the text is empty', () => {
    const v = extractTokenFeatures('', new Float64Array(TOKEN_FEATURE_COUNT).fill(7));
    expect(Array.from(v).every((x) => x === 0)).toBe(true);
  });
});

describe('createCalibratedCounter', () => {
  it('returns 0 for empty text under every preset', () => {
    for (const preset of CALIBRATED_PRESETS)
      expect(createCalibratedCounter({ preset }).countText('')).toBe(0);
  });

  it('has one weight per feature for every preset', () => {
    for (const preset of CALIBRATED_PRESETS)
      expect(CALIBRATED_WEIGHTS[preset].w).toHaveLength(TOKEN_FEATURE_COUNT);
  });

  it('names itself after the preset', () => {
    expect(createCalibratedCounter({ preset: 'cl100k' }).name).toBe('ctxkit-cl100k');
  });

  it('never decreases when text is appended', () => {
    const counter = createCalibratedCounter();
    const pieces = [
      'The quick brown fox ',
      'jumps over 13 lazy dogs. ',
      '猫が好き ',
      '👍 ',
      '{"a": [1, 2]}\n    ',
    ];
    let text = '';
    let last = 0;
    for (let i = 0; i < 40; i++) {
      text += pieces[i % pieces.length];
      const n = counter.countText(text);
      expect(n).toBeGreaterThanOrEqual(last);
      last = n;
    }
  });

  it('counts English prose at roughly 3.5–5.5 characters per token under o200k', () => {
    const text = 'It was the best of times, it was the worst of times, it was the age of wisdom. '.repeat(20);
    const n = createCalibratedCounter({ preset: 'o200k' }).countText(text);
    expect(text.length / n).toBeGreaterThan(3.5);
    expect(text.length / n).toBeLessThan(5.5);
  });

  it('counts CJK, emoji and base64 more densely than English when texts have equal length', () => {
    const counter = createCalibratedCounter();
    const english = 'a quick brown fox jumps over the lazy dog '.repeat(5).slice(0, 200);
    const cjk = '我们今天去公园散步天气很好'.repeat(20).slice(0, 200);
    const emoji = '😀🎉'.repeat(50);
    const b64 = 'iVBORw0KGgoAAAANSUhEUgAABt4AAATqCAYAAADRdhVcAAAMPmlDQ1BJQ0MgUHJvZmlsZQAASImVVwdYU8kW'
      .repeat(3)
      .slice(0, 200);
    const base = counter.countText(english);
    expect(counter.countText(cjk)).toBeGreaterThan(base * 2);
    expect(counter.countText(emoji)).toBeGreaterThan(base * 2);
    expect(counter.countText(b64)).toBeGreaterThan(base * 1.5);
  });

  it('returns an upper bound at least the estimate for texts of every kind', () => {
    const counter = createCalibratedCounter({ preset: 'llama3' });
    for (const text of ['', 'x', 'hello world', '数据结构', '🙂🙂', '{"k":1}', 'a'.repeat(999)]) {
      expect(counter.upperBound(text)).toBeGreaterThanOrEqual(counter.countText(text));
    }
  });

  it('counts every part kind of a message plus the per-message overhead', () => {
    const counter = createCalibratedCounter({ preset: 'o200k', messageOverhead: 4, imageTokens: 1000 });
    const text = 'Please look at the attached file and summarise it.';
    const bare = counter.countMessage(user(text));
    expect(bare).toBe(counter.countText(text) + 4);
    const withImage = counter.countMessage(user([{ type: 'text', text }, image('https://x/y.png')]));
    expect(withImage).toBe(bare + 1000);
    const call = counter.countMessage(assistant('', [toolCall('c1', 'read_file', { path: 'src/index.ts' })]));
    expect(call).toBeGreaterThan(4 + 3);
    const result = counter.countMessage(toolResult('c1', 'read_file', { lines: 120, ok: true }));
    expect(result).toBe(counter.countText(JSON.stringify({ lines: 120, ok: true })) + 4);
  });

  it('counts a message hidden from the agent as 0', () => {
    const counter = createCalibratedCounter();
    expect(counter.countMessage(user('secret', { meta: { agentVisible: false } }))).toBe(0);
  });

  it('throws naming the field when the preset is unknown', () => {
    expect(() => createCalibratedCounter({ preset: 'gpt2' as never })).toThrow(
      "preset: unknown preset 'gpt2'",
    );
    expect(() => createCalibratedCounter({ imageTokens: -1 })).toThrow('imageTokens: must be >= 0');
  });
});

describe('CALIBRATED_UPPER', () => {
  it("holds each preset's upper factor when read beside CALIBRATED_WEIGHTS", () => {
    for (const preset of CALIBRATED_PRESETS)
      expect(CALIBRATED_UPPER[preset]).toBe(CALIBRATED_WEIGHTS[preset].upper);
    expect(Object.keys(CALIBRATED_UPPER)).toEqual([...CALIBRATED_PRESETS]);
  });
});

describe('o200kWeights', () => {
  it('is the o200k entry of CALIBRATED_WEIGHTS itself', () => {
    expect(CALIBRATED_WEIGHTS.o200k).toBe(o200kWeights);
  });

  it("counts as createCalibratedCounter({ preset: 'o200k' }) when the default pipeline preset uses it", () => {
    const pipeline = createPipeline();
    const counter = createCalibratedCounter({ preset: 'o200k' });
    const texts = ['', 'hello world', '数据结构', '🙂🙂', '{"k":1}', 'x'.repeat(999)];
    for (const text of texts) expect(pipeline.counter.countText(text)).toBe(counter.countText(text));
    const m = user([{ type: 'text', text: 'see' }, image('https://x/y.png')]);
    expect(pipeline.counter.countMessage(m)).toBe(counter.countMessage(m));
  });
});

describe('createSessionCalibrator', () => {
  it('converges to the true ratio within 2% after three observations when estimates are off by 15%', () => {
    const calibrator = createSessionCalibrator();
    const truth = [1000, 1400, 2100, 2600, 3300];
    const ratios: number[] = [];
    for (const reported of truth) {
      const estimated = Math.round(reported / 1.15);
      calibrator.observe(estimated, reported);
      ratios.push(calibrator.factor);
    }
    expect(Math.abs(ratios[2]! - 1.15) / 1.15).toBeLessThan(0.02);
    expect(calibrator.observations).toBe(5);
  });

  it('keeps the factor within its bounds and ignores invalid observations', () => {
    const calibrator = createSessionCalibrator({ min: 0.8, max: 1.25 });
    expect(calibrator.observe(1000, 5000)).toBe(1.25);
    expect(calibrator.observe(0, 5000)).toBe(1.25);
    expect(calibrator.observe(Number.NaN, 10)).toBe(1.25);
    expect(calibrator.observations).toBe(1);
  });

  it('scales a wrapped counter by the learned factor', () => {
    const calibrator = createSessionCalibrator();
    const counter = createCalibratedCounter();
    const wrapped = calibrator.wrap(counter);
    const text = 'word '.repeat(200);
    expect(wrapped.countText(text)).toBe(counter.countText(text));
    calibrator.observe(1000, 1100);
    expect(wrapped.countText(text)).toBe(Math.round(counter.countText(text) * 1.1));
    expect(wrapped.countText('')).toBe(0);
  });
});

describe('packWeights', () => {
  it('round-trips weights within 1.1% and zero exactly when packed and unpacked', () => {
    const weights = [0, 0.0045, 0.0558, 0.784, 1, 3.42, 15.5];
    const back = unpackWeights(packWeights(weights), weights.length);
    expect(back).toHaveLength(7);
    expect(back[0]).toBe(0);
    back.forEach((v, i) => {
      expect(Math.abs(v - weights[i]!)).toBeLessThanOrEqual(weights[i]! * 0.011);
    });
    expect(unpackWeights(packWeights([0.001]), 1)).toEqual([0]);
    expect(packWeights(back)).toBe(packWeights(weights));
  });
});

describe('packBits', () => {
  it('round-trips a bit set when packed and unpacked', () => {
    const bits = Array.from({ length: 676 }, (_, i) => ((i * 7) % 5 === 0 ? 1 : 0));
    expect(Array.from(unpackBits(packBits(bits), 676))).toEqual(bits);
  });
});
