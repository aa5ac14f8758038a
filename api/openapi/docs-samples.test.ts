/**
 * The JSON samples of README.md and docs/*.md say what the service answers:
 * each is checked against the OpenAPI document, the same document the
 * response validator holds every real answer to. A fenced block whose content
 * is JSON carries a marker on the line before it (blank lines between allowed):
 *
 *   <!-- api-answer: GET /api/v1/widgets/{id}/embed 200 -->        the whole answer's body
 *   <!-- api-answer: GET /api/v1/widgets/{id}/schema 200 .data --> the answer's `data` member
 *   <!-- webhook-event: review.created -->                          the body of a webhook delivery
 *   <!-- sample: not an API answer (why) -->                        anything else, said so
 *
 * An unmarked JSON block fails, so that a new sample cannot skip the check.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateAnswerBody, validateWebhookBody } from './response-validator.ts';

const repo = new URL('../../', import.meta.url);

interface Block {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  text: string;
  marker: string | null;
}

const MARKER = /^<!--\s*((?:api-answer|webhook-event|sample):[^>]*?)\s*-->$/;

/** Every fenced block of a Markdown file, with the marker comment above it if any. */
function fencedBlocks(file: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    let end = i + 1;
    while (end < lines.length && !lines[end]!.trimStart().startsWith(fence)) end++;
    let above = i - 1;
    while (above >= 0 && lines[above]!.trim() === '') above--;
    const marker = above >= 0 ? (MARKER.exec(lines[above]!.trim())?.[1] ?? null) : null;
    blocks.push({ file, line: i + 1, lang: open[3] ?? '', text: lines.slice(i + 1, end).join('\n'), marker });
    i = end;
  }
  return blocks;
}

function parsesAsJson(text: string): unknown {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

/** What is wrong with one marked sample; empty when it matches the document. */
function sampleProblems(marker: string, sample: unknown): string[] {
  const answer = /^api-answer:\s*(GET|HEAD|OPTIONS|POST)\s+(\S+)\s+(\d{3})(?:\s+\.(\w+))?$/.exec(marker);
  if (answer) {
    const [, method, path, status, member] = answer;
    return validateAnswerBody(method!, path!, Number(status), member ? { [member]: sample } : sample);
  }
  const event = /^webhook-event:\s*([\w.]+)$/.exec(marker);
  if (event) return validateWebhookBody(event[1]!, sample);
  if (/^sample:\s*not an API answer\b/.test(marker)) return [];
  return [`marker not understood: <!-- ${marker} -->`];
}

const files = ['README.md', ...readdirSync(new URL('docs/', repo)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const blocks = files.flatMap((file) => fencedBlocks(file, readFileSync(new URL(file, repo), 'utf8')));

describe('the JSON samples of the docs', () => {
  it('are each marked: an API answer, a webhook delivery, or said to be neither', () => {
    const json = blocks.filter((b) => b.lang === 'json' || parsesAsJson(b.text) !== undefined);
    expect(json.length).toBeGreaterThan(0);
    const unmarked = json.filter((b) => b.marker === null).map((b) => `${b.file}:${b.line}`);
    expect(unmarked, 'JSON blocks without a marker').toEqual([]);
    const markedNotJson = blocks.filter((b) => b.marker !== null && parsesAsJson(b.text) === undefined).map((b) => `${b.file}:${b.line}`);
    expect(markedNotJson, 'marked blocks that are not JSON').toEqual([]);
  });

  const marked = blocks.filter((b) => b.marker !== null && !b.marker.startsWith('sample:'));
  it('include the answers and the webhook payload the guides show', () => {
    expect(marked.map((b) => b.marker)).toEqual(
      expect.arrayContaining(['api-answer: GET /api/v1/widgets/{id}/embed 200', 'api-answer: GET /api/v1/widgets/{id}/schema 200 .data', 'webhook-event: review.created']),
    );
  });

  it.each(marked.map((b) => [`${b.file}:${b.line}`, b] as const))('%s matches the OpenAPI document', (_where, block) => {
    expect(sampleProblems(block.marker!, parsesAsJson(block.text))).toEqual([]);
  });
});

describe('the check itself', () => {
  it('finds a sample that does not match (a lower-case platform, a missing field, an unknown operation)', () => {
    const review = { id: 'rev_1', platform: 'google', authorName: 'Ana', authorAvatar: null, rating: 5, content: 'ok', date: '2026-11-20T10:00:00.000Z', url: null, language: 'en', isVerified: true, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], productId: null, reply: null, createdAt: '2026-11-21T10:00:00.000Z' };
    const event = { type: 'review.created', timestamp: '2026-11-25T12:00:00.000Z', data: review };
    expect(sampleProblems('webhook-event: review.created', event).join('\n')).toMatch(/platform/);
    expect(sampleProblems('webhook-event: review.created', { ...event, data: { ...review, platform: 'GOOGLE' } })).toEqual([]);
    expect(sampleProblems('api-answer: GET /api/v1/reviews 200', { data: [{ ...review, platform: 'GOOGLE' }] }).join('\n')).toMatch(/pagination/);
    expect(sampleProblems('api-answer: GET /api/v1/nowhere 200', {})).toEqual([expect.stringMatching(/no such operation/)]);
    expect(sampleProblems('api-answer: GET /api/v1/widgets/{id}/embed 200 .data', { widgetId: 'wdg_1' }).join('\n')).toMatch(/snippet|script/);
    expect(sampleProblems('webhook-event: review.exploded', {})).toEqual([expect.stringMatching(/no such event type/)]);
    expect(sampleProblems('api-answer: yes', {})).toEqual([expect.stringMatching(/not understood/)]);
  });
});
