/**
 * What both front ends' builds (widget/build.ts, dashboard/build.ts) write:
 * each file with its gzip and brotli siblings, and the sizes the budgets are
 * checked against. Its own module so that either build can import it (the
 * widget build runs the dashboard build from its own top-level await).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export interface FileSize {
  raw: number;
  gzip: number;
  brotli: number;
}

export function compress(raw: Uint8Array): { gzip: Buffer; brotli: Buffer } {
  return {
    gzip: gzipSync(raw, { level: 9 }),
    brotli: brotliCompressSync(raw, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: raw.byteLength,
      },
    }),
  };
}

export function writeWithSiblings(outDir: string, name: string, raw: Uint8Array): FileSize {
  const { gzip, brotli } = compress(raw);
  writeFileSync(join(outDir, name), raw);
  writeFileSync(join(outDir, `${name}.gz`), gzip);
  writeFileSync(join(outDir, `${name}.br`), brotli);
  return { raw: raw.byteLength, gzip: gzip.byteLength, brotli: brotli.byteLength };
}


export interface Budget {
  name: string;
  limit: number;
  actual: number;
  ok: boolean;
  /** For a page budget: the files such a page loads, whose gzip sizes add up to `actual`. */
  files?: string[];
}

/** Page budgets: each page's files (deduplicated: a file is fetched once per page) summed by gzip size. */
export function pageBudgets(pages: { name: string; limit: number; files: string[] }[], sizes: Record<string, FileSize>): Budget[] {
  return pages.map(({ name, limit, files }) => {
    const unique = [...new Set(files)];
    const actual = unique.reduce((sum, file) => {
      const size = sizes[file];
      if (!size) throw new Error(`page budget "${name}": no size for ${file}`);
      return sum + size.gzip;
    }, 0);
    return { name, limit, actual, ok: actual <= limit, files: unique };
  });
}
