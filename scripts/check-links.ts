/**
 * Link check for the Markdown in the repository (a stage of `npm test`): every
 * relative link in every tracked `*.md` must reach a file or folder, and every
 * `#anchor` a heading (GitHub's slugs) or an `id`/`name` of that file.
 * Addresses with a scheme (https:, mailto:) are not followed: the checks run offline.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Lines outside fenced code blocks, with inline code blanked (links inside code are examples). */
function proseLines(markdown: string, blankInlineCode = true): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence !== null) {
      if (open && open[1]!.startsWith(fence)) fence = null;
      return '';
    }
    if (open) {
      fence = open[1]!;
      return '';
    }
    return blankInlineCode ? line.replace(/(`+)[\s\S]*?\1/g, (code) => ' '.repeat(code.length)) : line;
  });
}

/** The anchors a Markdown file offers. */
export function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown, false)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      found.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<[a-z]+\s[^>]*\b(?:id|name)="([^"]+)"/gi)) found.add(m[1]!);
  }
  return found;
}

/** Link targets with their line numbers: inline links and images, reference definitions, HTML href/src. */
export function links(markdown: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  proseLines(markdown).forEach((line, i) => {
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ line: i + 1, target: m[1]! });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (definition) out.push({ line: i + 1, target: definition[1]! });
    for (const m of line.matchAll(/\b(?:href|src)="([^"]+)"/g)) out.push({ line: i + 1, target: m[1]! });
  });
  return out;
}

/** Every broken relative link and anchor in the given Markdown files (paths relative to root). */
export function checkLinks(root: string, files: string[]): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsOf = (path: string): Set<string> => {
    let set = anchorCache.get(path);
    if (!set) anchorCache.set(path, (set = anchors(readFileSync(path, 'utf8'))));
    return set;
  };
  for (const file of files) {
    const path = join(root, file);
    for (const { line, target } of links(readFileSync(path, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const [rawPath = '', anchor] = target.split('#', 2) as [string, string | undefined];
      const filePart = decodeURIComponent(rawPath);
      const dest = filePart === '' ? path : filePart.startsWith('/') ? join(root, filePart) : resolve(dirname(path), filePart);
      if (!dest.startsWith(resolve(root))) {
        broken.push({ file, line, target, reason: 'points outside the repository' });
        continue;
      }
      if (!existsSync(dest)) {
        broken.push({ file, line, target, reason: `no such file: ${relative(root, dest)}` });
        continue;
      }
      if (anchor !== undefined && anchor !== '' && dest.endsWith('.md') && statSync(dest).isFile() && !anchorsOf(dest).has(decodeURIComponent(anchor))) {
        broken.push({ file, line, target, reason: `no heading or id "${anchor}" in ${relative(root, dest)}` });
      }
    }
  }
  return broken;
}

/** The Markdown files git tracks (or would: new files not yet ignored), node_modules aside. */
export function markdownFiles(root: string): string[] {
  const git = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: root, encoding: 'utf8' });
  if (git.error || git.status !== 0) throw new Error(`git ls-files failed: ${git.stderr || git.error?.message}`);
  return git.stdout.split('\n').filter((f) => f !== '' && !f.includes('node_modules/') && existsSync(join(root, f)));
}

if (import.meta.filename === process.argv[1]) {
  const root = join(import.meta.dirname, '..');
  const files = markdownFiles(root);
  const broken = checkLinks(root, files);
  for (const b of broken) process.stderr.write(`${b.file}:${b.line}: ${b.target}: ${b.reason}\n`);
  process.stdout.write(`links: ${files.length} Markdown files, ${broken.length} broken link${broken.length === 1 ? '' : 's'}\n`);
  process.exit(broken.length === 0 ? 0 : 1);
}
