/**
 * Text to search terms, the same way for products and queries: NFKC, lower case, split on
 * anything that is not a letter or digit; Latin (and other spaced) words stay whole, while runs
 * of Hangul, kana and kanji become character bigrams (a lone character stays itself), because
 * Korean and Japanese do not mark word boundaries with spaces the way a tokenizer could use.
 */

// Hangul, Hiragana, Katakana (with the prolonged sound mark), Han.
const CJK = /[\p{Script=Hangul}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}\u30fc\uff70]/u;
const CJK_RUNS = /([\p{Script=Hangul}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}\u30fc\uff70]+)/u;
const SEPARATORS = /[^\p{L}\p{N}\u30fc]+/u;

export function normalize(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** Bigrams of a CJK run: 운동화 -> 운동, 동화; a single character is its own term. */
function bigrams(run: string, into: string[]): void {
  const chars = Array.from(run);
  if (chars.length === 1) into.push(chars[0]);
  for (let i = 0; i + 1 < chars.length; i++) into.push(chars[i] + chars[i + 1]);
}

/** The terms of a text, in order, with repeats. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of normalize(text).split(SEPARATORS)) {
    if (word === '') continue;
    if (!CJK.test(word)) {
      out.push(word);
      continue;
    }
    // A word mixing scripts (e.g. "tシャツ", "나이키air"): Latin parts whole, CJK parts in bigrams.
    for (const part of word.split(CJK_RUNS)) {
      if (part === '') continue;
      if (CJK.test(part)) bigrams(part, out);
      else out.push(part);
    }
  }
  return out;
}

/** Is this a term of a spaced script (so a query term may match it as a prefix: bag -> bags)? */
export function isWordTerm(term: string): boolean {
  return !CJK.test(term);
}

export type Language = 'ko' | 'en' | 'ja';

/** The language a query is most likely written in, by its script; undefined when it cannot tell. */
export function guessLanguage(query: string): Language | undefined {
  if (/\p{Script=Hangul}/u.test(query)) return 'ko';
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(query)) return 'ja';
  if (/\p{Script=Han}/u.test(query)) return 'ja';
  if (/\p{Script=Latin}/u.test(query)) return 'en';
  return undefined;
}
