/**
 * The escaping code that docs/json-ld.md asks site owners to copy must do
 * exactly what the service does: run the snippets against hostile payloads.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { jsonLdScriptTag, serializeJsonLdForHtml } from './inject.ts';

const markdown = readFileSync(fileURLToPath(new URL('../docs/json-ld.md', import.meta.url)), 'utf8');

/** The source of `function name(...) {...}` from the first fenced block of `lang` that has it. */
function snippet(lang: string, name: string): string {
  for (const [, body] of markdown.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))) {
    const match = body?.match(new RegExp(`^(?:export )?function ${name}\\([\\s\\S]*?\\n\\}`, 'm'));
    if (match) return match[0];
  }
  throw new Error(`docs/json-ld.md has no ${lang} function ${name}`);
}

function load<F>(source: string, name: string, loader: 'js' | 'ts'): F {
  const js = transformSync(source, { loader, format: 'esm' }).code;
  return new Function(`${js}\nreturn ${name};`)() as F;
}

const PAYLOADS = ['</script><script>alert(1)</script>', '<!--<script>', 'a\u2028b\u2029c', '&amp; "q" \\ ', '😀'];
const doc = { '@type': 'Review', reviewBody: PAYLOADS.join(' | '), author: { name: PAYLOADS[0] } };

describe('docs/json-ld.md', () => {
  it('Express jsonLdScript writes the same element as jsonLdScriptTag', () => {
    const jsonLdScript = load<(d: unknown, id: string) => string>(snippet('js', 'jsonLdScript'), 'jsonLdScript', 'js');
    expect(jsonLdScript(doc, 'wgt_123')).toBe(jsonLdScriptTag(doc, 'wgt_123'));
  });

  it('Next.js htmlSafeJson writes the same text as serializeJsonLdForHtml', () => {
    const htmlSafeJson = load<(d: unknown) => string>(snippet('tsx', 'htmlSafeJson'), 'htmlSafeJson', 'ts');
    expect(htmlSafeJson(doc)).toBe(serializeJsonLdForHtml(doc));
  });
});

describe('docs/json-ld.md lint table', () => {
  it('lists every rule of schema/lint.ts with the severities the code gives it', () => {
    const source = readFileSync(fileURLToPath(new URL('./lint.ts', import.meta.url)), 'utf8');
    const inCode = new Map<string, Set<string>>();
    for (const [, rule, severity] of source.matchAll(/add\(\s*'([a-z-]+)',\s*'(error|warning)'/g)) {
      inCode.set(rule!, (inCode.get(rule!) ?? new Set()).add(severity!));
    }
    expect(inCode.size).toBeGreaterThan(5);
    const inDocs = new Map<string, string>();
    for (const [, rule, severity] of markdown.matchAll(/^\| `([a-z-]+)` \| ([^|]+) \|/gm)) inDocs.set(rule!, severity!.trim());
    for (const [rule, severities] of inCode) {
      const written = inDocs.get(rule);
      expect(written, `docs/json-ld.md's lint table has no row for ${rule}`).toBeDefined();
      // Each severity the code uses is named; one the code never uses for the rule is not.
      for (const severity of ['error', 'warning']) expect(written!.includes(severity), `${rule}: "${written}" vs ${[...severities].join(', ')}`).toBe(severities.has(severity));
    }
  });
});
