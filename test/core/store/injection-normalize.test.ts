import { describe, expect, it } from 'vitest';
import { scanForms } from '../../../src/core/store/injection-normalize.ts';

describe('scanForms', () => {
  it.each([
    ['Cyrillic and Greek look-alikes', 'Іgnоrе ρrеvіοus', 'ignore previous'],
    ['soft hyphens and zero-width characters', 'ig\u00ADnore pre\u200Bvi\u2060ous', 'ignore previous'],
    ['full-width and mathematical letters', 'ｉｇｎｏｒｅ 𝗉𝗋𝖾𝗏𝗂𝗈𝗎𝗌', 'ignore previous'],
    ['accents', 'ïgnörë prévïöüs', 'ignore previous'],
    ['digits for letters inside words', '1gn0r3 pr3v10us 0n', 'ignore previous on'],
    ['emphasis marks inside words', 'i*g*n*o*r*e p_r_e_v_i_o_u_s', 'ignore previous'],
    ['case and spacing', 'IGNORE\t\n  Previous', 'ignore previous'],
  ])('reads %s as the words they show', (_name, text, folded) => {
    expect(scanForms(text).folded).toBe(folded);
  });

  it('keeps numbers, versions and shell variables as they are', () => {
    expect(scanForms('Node 20.19, $HOME and v2 in 2024').folded).toBe('node 20.19, $home and v2 in 2024');
  });

  it('gives the letters alone in the compact form, so that letter-spacing hides nothing', () => {
    expect(scanForms('i g n o r e · a-l-l').compact).toBe('ignoreall');
  });

  it('keeps the lines and punctuation of the lowered form for the markup patterns', () => {
    expect(scanForms('Notes\n# System prompt:').lowered).toBe('notes\n# system prompt:');
  });
});
