/**
 * Where a widget chunk's bytes are: builds the chunks as widget/build.ts does,
 * but keeping esbuild's per-module comments, and prints for every output each
 * input module's minified bytes and its marginal gzip (the chunk's gzip minus
 * the chunk's gzip without that module), largest first.
 *
 *   npx tsx widget/weigh.ts
 */
import { build, transform } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { chunkBuildOptions } from './build.ts';

const gz = (s: string): number => gzipSync(s, { level: 9 }).length;

const out = await build({ ...chunkBuildOptions(mkdtempSync(join(tmpdir(), "rv-weigh-"))), minify: false, minifySyntax: true, minifyIdentifiers: true });
for (const file of out.outputFiles.filter((f) => f.path.endsWith('.js'))) {
  // esbuild marks where each input module starts with a "// path" line.
  const parts: { name: string; code: string }[] = [];
  let current = { name: '(chunk glue)', code: '' };
  for (const line of file.text.split('\n')) {
    const mark = /^\/\/ (\S+\.(?:tsx?|js|mjs))$/.exec(line);
    if (mark) {
      parts.push(current);
      current = { name: mark[1]!, code: '' };
    } else current.code += line + '\n';
  }
  parts.push(current);
  const minified = await Promise.all(parts.map(async (p) => ({ name: p.name, code: (await transform(p.code, { minifyWhitespace: true, format: 'esm', loader: 'js', charset: 'utf8' }).catch(() => ({ code: p.code }))).code })));
  const whole = minified.map((p) => p.code).join('');
  const total = gz(whole);
  console.log(`\n${basename(file.path)}: ${whole.length} B minified, ${total} B gzip`);
  const rows = minified.map((p, i) => ({ name: p.name, raw: p.code.length, marginal: total - gz(minified.filter((_, j) => j !== i).map((q) => q.code).join('')) }));
  rows.sort((a, b) => b.marginal - a.marginal);
  for (const r of rows) console.log(`  ${String(r.raw).padStart(6)} ${String(r.marginal).padStart(6)}  ${r.name}`);
}
