/** Byte or text chunks from a file or request body, as text, split at no code point. */

export type ChunkSource = AsyncIterable<Buffer | Uint8Array | string>;

/**
 * The largest record the parsers hold in memory. A review's own limits
 * (content 20,000 characters, everything else small) fit many times over;
 * anything larger is rejected without being buffered.
 */
export const MAX_RECORD_CHARS = 1_000_000;

export async function* decodeChunks(source: ChunkSource): AsyncGenerator<string> {
  // Streaming decode: a multi-byte character split across chunks stays whole.
  const decoder = new TextDecoder('utf-8');
  let first = true;
  for await (const chunk of source) {
    let text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (text.length > 0) yield text;
  }
  const rest = decoder.decode();
  if (rest.length > 0) yield rest;
}
