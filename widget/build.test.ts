import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOADER_BUDGET, PAGE_BUDGETS, buildWidget, type BuildResult } from './build.ts';

describe('buildWidget', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'widget-build-'));
  let result: BuildResult;
  const lines: string[] = [];
  beforeAll(async () => {
    result = await buildWidget({ outDir, log: (line) => lines.push(line) });
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('writes the loader, the hashed chunks, the catalogs and the manifest', () => {
    const { manifest } = result;
    expect(manifest.loader).toBe('loader.js');
    expect(manifest.layouts).toEqual({
      badge: expect.stringMatching(/^widget-badge-[A-Z0-9]+\.js$/),
      carousel: expect.stringMatching(/^widget-framed-[A-Z0-9]+\.js$/),
      grid: manifest.layouts.carousel,
      list: manifest.layouts.carousel,
    });
    for (const name of manifest.chunks) expect(name).toMatch(/^widget-(badge|framed|shared|reply)-[A-Z0-9]+\.js$/);
    expect(manifest.reply).toMatch(/^widget-reply-[A-Z0-9]+\.js$/);
    expect(manifest.chunks).toContain(manifest.reply);
    for (const name of Object.values(manifest.layouts)) expect(manifest.chunks).toContain(name);
    expect(JSON.parse(readFileSync(join(outDir, 'manifest.json'), 'utf8'))).toEqual(manifest);
    const catalogs = Object.values(manifest.catalogs).flatMap((name) => [name, `${name}.br`, `${name}.gz`]);
    expect(Object.keys(manifest.catalogs).length).toBeGreaterThanOrEqual(19);
    const chunks = manifest.chunks.flatMap((name) => [name, `${name}.br`, `${name}.gz`]);
    expect(readdirSync(outDir).sort()).toEqual(['loader.js', 'loader.js.br', 'loader.js.gz', 'manifest.json', ...chunks, ...catalogs].sort());
    // The loader knows every catalog's name; no chunk holds another language's words.
    const loader = readFileSync(join(outDir, 'loader.js'), 'utf8');
    for (const [lang, name] of Object.entries(manifest.catalogs)) {
      expect(loader).toContain(name.replace(`-${lang}.json`, '-*.json'));
      expect(JSON.parse(readFileSync(join(outDir, name), 'utf8')).heading).toBeTruthy();
    }
    for (const name of manifest.chunks) expect(readFileSync(join(outDir, name), 'utf8')).not.toContain('Kundenbewertungen');
  });

  it('compiles the layouts\' chunk names into the loader, and the precompressed files match', () => {
    const loader = readFileSync(join(outDir, 'loader.js'), 'utf8');
    for (const name of Object.values(result.manifest.layouts)) expect(loader).toContain(JSON.stringify(name));
    expect(loader).not.toMatch(/__RV_\w+__/);
    for (const name of [result.manifest.loader, ...result.manifest.chunks]) {
      const raw = readFileSync(join(outDir, name));
      expect(gunzipSync(readFileSync(join(outDir, `${name}.gz`))).equals(raw)).toBe(true);
      expect(brotliDecompressSync(readFileSync(join(outDir, `${name}.br`))).equals(raw)).toBe(true);
      expect(result.manifest.sizes[name]!.gzip).toBe(readFileSync(join(outDir, `${name}.gz`)).length);
    }
  });

  it('loads no Preact in the browser: the badge draws with dom-render.ts, the framed layouts with dom-patch.ts', () => {
    const chunk = (name: string) => readFileSync(join(outDir, name), 'utf8');
    // Preact's diff sets `__k` (its children) on every element it renders.
    for (const name of result.manifest.chunks) expect(chunk(name)).not.toContain('.__k');
    // dom-patch.ts keeps each element's last props as `_p`: in the framed chunk only.
    const patching = result.manifest.chunks.filter((name) => chunk(name).includes('._p'));
    expect(patching).toEqual([result.manifest.layouts.carousel]);
  });

  it('sums each page budget over the files such a page loads, and prints them', () => {
    const { sizes, layouts } = result.manifest;
    const pages = result.budgets.filter((b) => b.files);
    expect(pages.map((b) => b.name)).toEqual(PAGE_BUDGETS.map((p) => p.name));
    for (const page of pages) {
      expect(page.files![0]).toBe('loader.js');
      expect(new Set(page.files).size).toBe(page.files!.length);
      expect(page.actual).toBe(page.files!.reduce((sum, name) => sum + sizes[name]!.gzip, 0));
      expect(lines.join('\n')).toContain(`${page.name}: ${page.actual} B gzip of ${page.limit} B`);
    }
    const badge = pages.find((p) => p.name === 'badge page')!;
    expect(badge.files).toContain(layouts.badge);
    expect(badge.files).not.toContain(layouts.carousel);
    expect(pages.find((p) => p.name === 'carousel page')!.files).not.toContain(layouts.badge);
    const four = pages.find((p) => p.name === 'four-layout page')!;
    for (const name of Object.values(layouts)) expect(four.files).toContain(name);
    expect(sizes['loader.js']!.gzip).toBeLessThanOrEqual(LOADER_BUDGET);
    expect(result.budgets.filter((b) => !b.ok)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('outputs a self-contained loader and ES module chunks that import only each other, no eval', () => {
    const loader = readFileSync(join(outDir, 'loader.js'), 'utf8');
    expect(loader).toMatch(/^("use strict";)?\(\(\)=>\{[^]*\}\)\(\);\n?$/);
    expect(loader).not.toMatch(/\bimport\s+[{*\w]|\brequire\(/);
    // Its import()s take the loader's own origin and a chunk name compiled in.
    expect(loader.match(/\bimport\(/g)).toHaveLength(2);
    const { chunks, reply, layouts } = result.manifest;
    for (const name of chunks) {
      const js = readFileSync(join(outDir, name), 'utf8');
      for (const [, from] of js.matchAll(/(?:import|from)\s*"([^"]*)"/g)) expect(from).toMatch(/^\.\/widget-shared-[A-Z0-9]+\.js$/);
      // The framed chunk's one import(): the replies' chunk, by a name compiled in, relative (its own origin).
      expect(js.match(/\bimport\([^)]*\)/g) ?? []).toEqual(name === layouts.carousel ? [`import("./${reply}")`] : []);
      expect(js).not.toMatch(/\brequire\(/);
      expect(js).not.toMatch(/\beval\(|new Function\(|document\.write|localStorage|sessionStorage|document\.cookie/);
    }
  });

  it('keeps the replies out of every page without one: their code, rules and words are in the replies\' chunk only, which imports nothing', () => {
    const { chunks, reply, needs } = result.manifest;
    const text = (name: string) => readFileSync(join(outDir, name), 'utf8');
    for (const name of chunks.filter((n) => n !== reply)) {
      for (const words of ['Response from', 'Antwort von', 'aria-expanded', '.rb{', 'text reply']) expect(text(name), `${name}: ${words}`).not.toContain(words);
    }
    for (const files of Object.values(needs)) expect(files).not.toContain(reply);
    for (const name of Object.values(result.manifest.catalogs)) expect(text(name)).not.toContain('{o}');
    const js = text(reply);
    for (const words of ['Response from {o}', 'رد {o}', 'Antwort von {o}', '.rb{', 'text reply']) expect(js).toContain(words);
    expect(js).not.toMatch(/\bimport\b/);
    expect(result.budgets.find((b) => b.name === 'replies chunk')).toMatchObject({ actual: result.manifest.sizes[reply]!.gzip, ok: true });
  });

  it('a second build removes previous hashed files only when their names change', async () => {
    const again = await buildWidget({ outDir });
    expect(again.manifest.chunks).toEqual(result.manifest.chunks);
    expect(readdirSync(outDir).filter((n) => n.startsWith('widget-'))).toHaveLength(3 * again.manifest.chunks.length);
    expect(readdirSync(outDir).filter((n) => n.startsWith('i18n-'))).toHaveLength(3 * Object.keys(again.manifest.catalogs).length);
  });
});
