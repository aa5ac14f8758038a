/**
 * Compressed answers (issue 38): brotli or gzip, as the client's
 * Accept-Encoding asks, for the JSON and HTML the service writes itself.
 * The widget's files come precompressed from the build (widgets/assets.ts).
 *
 * Two uses, two levels:
 * - a widget's public data and server-rendered HTML are compressed once per
 *   version, when the cache computes them (widgets/public-answers.ts), at a
 *   level that pays off over many visitors (`PRECOMPRESS`);
 * - the developer API's answers above `MIN_COMPRESS_BYTES` are compressed per
 *   request at a fast level (`compressApi`), and the compressed form is kept
 *   beside a body Buffer the routes hand out again (the page cache of
 *   /reviews, the unchanged statistics), so a repeated page costs a lookup.
 *
 * Below about 1 KB the framing costs more than it saves: such answers go as
 * they are (still with `Vary: Accept-Encoding`, so caches keep the forms apart).
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Context, Next } from 'koa';

export type Encoding = 'br' | 'gzip';

/** Answers shorter than this are sent uncompressed. */
export const MIN_COMPRESS_BYTES = 1024;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** A level per use: `once` for bytes answered many times, `fast` for bytes answered once or a few times. */
export type Level = 'once' | 'fast';

const BROTLI_QUALITY: Record<Level, number> = { once: 9, fast: 4 };
const GZIP_LEVEL: Record<Level, number> = { once: 9, fast: 1 };

export function compress(bytes: Buffer, encoding: Encoding, level: Level): Promise<Buffer> {
  if (encoding === 'gzip') return gzipAsync(bytes, { level: GZIP_LEVEL[level] });
  return brotli(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY[level],
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}

/** Both forms of bytes answered many times (null when too short to be worth it). */
export interface Precompressed {
  br: Buffer;
  gzip: Buffer;
}

export async function precompress(bytes: Buffer): Promise<Precompressed | null> {
  if (bytes.length < MIN_COMPRESS_BYTES) return null;
  const [br, gz] = await Promise.all([compress(bytes, 'br', 'once'), compress(bytes, 'gzip', 'once')]);
  return { br, gzip: gz };
}

/** Accept-Encoding values seen, with their choice: browsers send a handful of distinct ones. */
const choices = new Map<string, Encoding | null>();
const MAX_CHOICES = 256;

/**
 * The encoding to answer with, by Accept-Encoding (RFC 9110 §12.5.3): the
 * acceptable coding with the highest weight, brotli before gzip on a tie;
 * `*` stands for brotli; a weight of 0 refuses. None acceptable: null (the
 * bytes as they are, which `identity;q=0` cannot refuse in practice).
 */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  const known = choices.get(acceptEncoding);
  if (known !== undefined) return known;
  const choice = parseChoice(acceptEncoding);
  if (acceptEncoding.length <= 200) {
    if (choices.size >= MAX_CHOICES) choices.clear();
    choices.set(acceptEncoding, choice);
  }
  return choice;
}

function parseChoice(header: string): Encoding | null {
  let br = -1;
  let gz = -1;
  let star = -1;
  for (const part of header.slice(0, 1000).split(',')) {
    const [name = '', ...params] = part.split(';');
    let q = 1;
    for (const param of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(param);
      if (m) q = Math.min(1, Number(m[1]));
    }
    const coding = name.trim().toLowerCase();
    if (coding === 'br') br = Math.max(br, q);
    else if (coding === 'gzip' || coding === 'x-gzip') gz = Math.max(gz, q);
    else if (coding === '*') star = Math.max(star, q);
  }
  // `*` covers the codings not named.
  if (br < 0) br = star;
  if (gz < 0) gz = star;
  if (br <= 0 && gz <= 0) return null;
  return br >= gz ? 'br' : 'gzip';
}

/** The form of precompressed bytes to send: the encoding and its bytes, or the raw bytes. */
export function pickForm(raw: Buffer, forms: Precompressed | null, acceptEncoding: string | undefined): { encoding: Encoding | null; bytes: Buffer } {
  const encoding = forms ? chooseEncoding(acceptEncoding) : null;
  if (!encoding || !forms) return { encoding: null, bytes: raw };
  return { encoding, bytes: forms[encoding] };
}

/** Compressed forms of body Buffers answered again (the same instance), kept as long as the Buffer lives. */
const kept = new WeakMap<Buffer, Partial<Record<Encoding, Buffer>>>();

/**
 * The developer API's answers: a JSON body of at least MIN_COMPRESS_BYTES
 * (a Buffer or a string; an object is encoded as Koa would) is sent
 * compressed when the client accepts it. HEAD answers, errors below the
 * threshold and anything already encoded go as they are.
 */
export function compressApi() {
  return async function compressApi(ctx: Context, next: Next): Promise<void> {
    await next();
    ctx.vary('Accept-Encoding');
    const body: unknown = ctx.body;
    if (body === null || body === undefined || ctx.method === 'HEAD' || ctx.response.get('Content-Encoding')) return;
    if (ctx.status === 204 || ctx.status === 304) return;
    // Asked first: a client that accepts neither coding costs no encoding of the body here (Koa encodes it once).
    const encoding = chooseEncoding(ctx.get('accept-encoding'));
    if (!encoding) return;
    let bytes: Buffer;
    if (Buffer.isBuffer(body)) bytes = body;
    else if (typeof body === 'string') bytes = Buffer.from(body, 'utf8');
    else if (typeof body === 'object' && typeof (body as { pipe?: unknown }).pipe !== 'function') bytes = Buffer.from(JSON.stringify(body), 'utf8');
    else return;
    if (bytes.length < MIN_COMPRESS_BYTES) return;
    let forms = kept.get(bytes);
    let out = forms?.[encoding];
    if (!out) {
      out = await compress(bytes, encoding, 'fast');
      // Only a Buffer the route may hand out again is worth keeping forms for.
      if (bytes === body) {
        if (!forms) kept.set(bytes, (forms = {}));
        forms[encoding] = out;
      }
    }
    const type = ctx.response.get('Content-Type');
    ctx.body = out;
    // Setting a Buffer body makes Koa's type application/octet-stream when none was set: keep the route's.
    if (type) ctx.set('Content-Type', type);
    else ctx.type = 'application/json; charset=utf-8';
    ctx.set('Content-Encoding', encoding);
  };
}
