/**
 * A top-level JSON array, streamed element by element: a small scanner tracks
 * strings and nesting depth to find where each element starts and ends, and
 * only that element's text is held and handed to JSON.parse. Memory is bounded
 * by the largest element (capped at MAX_RECORD_CHARS), never by the file.
 */
import { decodeChunks, MAX_RECORD_CHARS, type ChunkSource } from './text-chunks.ts';
import type { ParsedRecord } from './parse-records.ts';

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const NEWLINE = 0x0a;

function isSpace(c: number): boolean {
  return c === 0x20 || c === NEWLINE || c === 0x0d || c === 0x09;
}

type State = 'start' | 'before-element' | 'element' | 'end';

export async function* jsonArrayRecords(source: ChunkSource): AsyncGenerator<ParsedRecord> {
  let state: State = 'start';
  let line = 1;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let elementLine = 0;
  let parts: string[] = [];
  let partsLength = 0;
  let oversized = false;
  /** Whether a comma was just read (so `]` now would be a trailing comma). */
  let afterComma = false;

  const finishElement = (): ParsedRecord => {
    const text = parts.join('');
    parts = [];
    partsLength = 0;
    if (oversized) {
      oversized = false;
      return { line: elementLine, error: `record is larger than ${MAX_RECORD_CHARS} characters` };
    }
    try {
      return { line: elementLine, record: JSON.parse(text) as unknown };
    } catch (err) {
      return { line: elementLine, error: `invalid JSON: ${(err as Error).message}` };
    }
  };

  for await (const chunk of decodeChunks(source)) {
    let elementStart = state === 'element' ? 0 : -1;
    const keep = (end: number): void => {
      if (elementStart < 0 || oversized) return;
      partsLength += end - elementStart;
      if (partsLength > MAX_RECORD_CHARS) {
        oversized = true;
        parts = [];
      } else parts.push(chunk.slice(elementStart, end));
    };
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c === NEWLINE) line++;
      switch (state) {
        case 'start':
          if (isSpace(c)) continue;
          if (c !== OPEN_BRACKET) {
            yield { line, error: 'a JSON import must be an array of review objects: [ {...}, {...} ]', fileLevel: true };
            return;
          }
          state = 'before-element';
          continue;
        case 'before-element':
          if (isSpace(c)) continue;
          if (c === CLOSE_BRACKET) {
            if (afterComma) yield { line, error: 'invalid JSON: trailing comma before ]' };
            state = 'end';
            continue;
          }
          if (c === COMMA) {
            yield { line, error: 'invalid JSON: empty array element' };
            continue;
          }
          state = 'element';
          elementStart = i;
          elementLine = line;
          inString = c === QUOTE;
          escaped = false;
          depth = c === OPEN_BRACE || c === OPEN_BRACKET ? 1 : 0;
          continue;
        case 'element':
          if (inString) {
            if (escaped) escaped = false;
            else if (c === BACKSLASH) escaped = true;
            else if (c === QUOTE) inString = false;
            continue;
          }
          if (c === QUOTE) inString = true;
          else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
          else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) depth--;
          else if (depth === 0 && (c === COMMA || c === CLOSE_BRACKET)) {
            keep(i);
            elementStart = -1;
            yield finishElement();
            afterComma = c === COMMA;
            state = c === COMMA ? 'before-element' : 'end';
          }
          continue;
        case 'end':
          if (isSpace(c)) continue;
          yield { line, error: 'invalid JSON: unexpected data after the closing ]' };
          return;
      }
    }
    if (state === 'element') keep(chunk.length);
  }
  if (state === 'element') {
    yield { line: elementLine, error: 'invalid JSON: unexpected end of input inside this record' };
  } else if (state === 'start') {
    yield { line, error: 'a JSON import must be an array of review objects: the input is empty', fileLevel: true };
  } else if (state === 'before-element') {
    yield { line, error: 'invalid JSON: unexpected end of input, the array is not closed' };
  }
}
