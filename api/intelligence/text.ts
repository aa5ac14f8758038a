/**
 * Review text as the analysers read it: HTML-looking markup taken out
 * (reviews copied from web pages carry `<br>`, `<b>`, `&amp;`), whitespace
 * collapsed, split into sentences and words. The stored `content` is never
 * changed; this is only what enrichment reads.
 */

const TAG = /<\/?[a-zA-Z][^<>]{0,200}>/g;
const ENTITY = /&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', hellip: '…', ndash: '–', mdash: '—' };
const SPACE = /\s+/g;

function decodeEntity(match: string, body: string): string {
  if (body[0] === '#') {
    const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : ' ';
  }
  return NAMED[body.toLowerCase()] ?? match;
}

/** The text without markup, entities decoded, whitespace collapsed. */
export function plainText(content: string): string {
  return content.replace(TAG, ' ').replace(ENTITY, decodeEntity).replace(SPACE, ' ').trim();
}

const LETTER = /\p{L}/u;
/** Han, kana and Hangul: one character carries about as much as a short Latin word. */
const DENSE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * Whether a text holds at least `min` letters, a Han, kana or Hangul
 * character counting 3. Stops as soon as it knows (called on every review).
 */
export function hasLetters(text: string, min: number): boolean {
  let weight = 0;
  for (let i = 0; i < text.length && weight < min; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      if ((c | 32) >= 97 && (c | 32) <= 122) weight++;
      continue;
    }
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    if (ch.length === 2) i++;
    if (DENSE.test(ch)) weight += 3;
    else if (LETTER.test(ch)) weight++;
  }
  return weight >= min;
}

/** Sentence ends: . ! ? … and their full-width forms, or a line break. */
const SENTENCE = /[^.!?…。！？\n]+(?:[.!?…。！？]+|\n|$)/g;

export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(SENTENCE)) {
    const s = m[0].trim();
    if (/\p{L}/u.test(s)) out.push(s);
  }
  return out;
}

/** Lower case, accents removed: the form the lexicons and stemmers of @nlpjs use. */
export function fold(text: string): string {
  const lower = text.toLowerCase();
  return ASCII.test(lower) ? lower : lower.normalize('NFD').replace(MARKS, '');
}

const ASCII = /^[\x00-\x7f]*$/;
const MARKS = /\p{M}/gu;
