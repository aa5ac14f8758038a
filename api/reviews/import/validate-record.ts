/**
 * One import record (parsed JSON, or a CSV row already typed by csv-records)
 * checked against CONTRACT §2 and turned into a `ReviewDraft`. Every problem
 * of the record is named in the reason, not only the first. The AI fields the
 * record lacks are left null here and filled by api/intelligence (enrich.ts).
 */
import { intern } from '../../intern.ts';
import { SENTIMENT_LABELS, type ReviewInput, type ReviewReply, type SentimentLabel } from '../../store/types.ts';
import { parseIsoDate } from '../iso-date.ts';
import { PRODUCT_ID } from '../../store/product-types.ts';

export { parseIsoDate, readAsUtc } from '../iso-date.ts';

/** The fields every record must have (a CSV header must name them). */
export const REQUIRED_FIELDS = ['platform', 'externalId', 'authorName', 'date'] as const;

export const IMPORT_FIELDS = [
  'platform',
  'externalId',
  'authorName',
  'authorAvatar',
  'rating',
  'content',
  'date',
  'url',
  'language',
  'isVerified',
  'sentiment',
  'sentimentLabel',
  'aiSummary',
  'aiThemes',
  'productId',
  'replyText',
  'replyDate',
] as const;

export const LIMITS = {
  externalId: 200,
  authorName: 200,
  content: 20_000,
  replyText: 20_000,
  aiSummary: 500,
  aiThemes: 20,
  aiTheme: 100,
  url: 2048,
} as const;


const PLATFORM = /^[A-Z][A-Z0-9_]{0,31}$/;
const LANGUAGE = /^([a-z]{2})(?:[-_][a-z0-9]{1,8})*$/i;
const KNOWN = new Set<string>(IMPORT_FIELDS);

/** A valid record before enrichment: `language` is null when the record names none. */
export type ReviewDraft = Omit<ReviewInput, 'language'> & { language: string | null };

export type Validation = { ok: true; value: ReviewDraft } | { ok: false; reason: string };

/** Longer than `max` characters (code points, so an emoji counts once). */
function tooLong(value: string, max: number): boolean {
  if (value.length <= max) return false;
  let n = 0;
  for (const _ of value) if (++n > max) return true;
  return false;
}

function httpUrl(value: unknown, field: string, problems: string[]): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') {
    problems.push(`${field} must be an http(s) URL or null`);
    return null;
  }
  const text = value.trim();
  if (text.length > LIMITS.url) {
    problems.push(`${field} is longer than ${LIMITS.url} characters`);
    return null;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    problems.push(`${field} must be an http(s) URL or null`);
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    problems.push(`${field} must use http or https, not ${url.protocol.replace(':', '')}`);
    return null;
  }
  return url.href;
}

/**
 * How far in the future a review's date may lie: clocks and time zones differ,
 * but a review dated next year (or 9999-12-31) would sit at the top of every
 * widget for ever.
 */
export const MAX_FUTURE_MS = 24 * 3600 * 1000;

/** Why an imported DIRECT review cannot say it is verified (CONTRACT §13). */
export const DIRECT_VERIFIED =
  'isVerified cannot be true on platform DIRECT: only the service\'s invitation links verify a DIRECT review; give false or leave it out';

export function validateRecord(raw: unknown, now: Date = new Date()): Validation {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, reason: 'a record must be a JSON object' };
  const r = raw as Record<string, unknown>;
  const problems: string[] = [];

  const unknown = Object.keys(r).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) {
    // Names are cut: a hostile header must not turn each rejection into megabytes.
    const named = unknown.slice(0, 5).map((k) => JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k)).join(', ');
    problems.push(`unknown field${unknown.length > 1 ? 's' : ''} ${named}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}`);
  }

  let platform = '';
  if (typeof r.platform !== 'string' || r.platform.trim() === '') problems.push('platform is required');
  else {
    platform = intern(r.platform.trim().toUpperCase());
    if (!PLATFORM.test(platform)) problems.push('platform must be an identifier such as GOOGLE (letters, digits, _; at most 32)');
  }

  let externalId = '';
  if (typeof r.externalId === 'number' && Number.isSafeInteger(r.externalId)) externalId = String(r.externalId);
  else if (typeof r.externalId === 'string') externalId = r.externalId.trim();
  else if (r.externalId !== undefined && r.externalId !== null) problems.push('externalId must be a string');
  if (externalId === '' && (r.externalId === undefined || r.externalId === null || typeof r.externalId === 'string')) {
    problems.push('externalId is required');
  } else if (tooLong(externalId, LIMITS.externalId)) problems.push(`externalId is longer than ${LIMITS.externalId} characters`);

  let authorName = '';
  if (typeof r.authorName !== 'string' || r.authorName.trim() === '') problems.push('authorName is required');
  else {
    // toWellFormed (ES2024): lone surrogates (from `\ud800` escapes) cannot be stored as UTF-8; each becomes U+FFFD.
    authorName = r.authorName.trim().toWellFormed();
    if (tooLong(authorName, LIMITS.authorName)) problems.push(`authorName is longer than ${LIMITS.authorName} characters`);
  }

  const authorAvatar = httpUrl(r.authorAvatar, 'authorAvatar', problems);
  const url = httpUrl(r.url, 'url', problems);

  let rating: number | null = null;
  if (r.rating !== undefined && r.rating !== null) {
    if (typeof r.rating === 'number' && Number.isInteger(r.rating) && r.rating >= 1 && r.rating <= 5) rating = r.rating;
    else problems.push('rating must be an integer from 1 to 5, or null');
  }

  let content = '';
  if (typeof r.content === 'string') {
    content = r.content.toWellFormed();
    if (tooLong(content, LIMITS.content)) problems.push(`content is longer than ${LIMITS.content} characters`);
  } else if (r.content !== undefined && r.content !== null) problems.push('content must be a string');

  let date = '';
  if (r.date === undefined || r.date === null || r.date === '') problems.push('date is required (ISO 8601)');
  else if (typeof r.date !== 'string') problems.push('date must be an ISO 8601 string, e.g. 2026-03-01T10:00:00Z');
  else {
    date = parseIsoDate(r.date) ?? '';
    if (date === '') problems.push('date must be an ISO 8601 date or date-time, e.g. 2026-03-01T10:00:00Z');
    else if (Date.parse(date) > now.getTime() + MAX_FUTURE_MS) problems.push(`date ${date} is more than 24 hours in the future`);
  }

  let language: string | null = null;
  if (typeof r.language === 'string' && r.language.trim() !== '') {
    const m = LANGUAGE.exec(r.language.trim());
    if (m) language = m[1]!.toLowerCase();
    else problems.push('language must be a two-letter code such as en');
  } else if (r.language !== undefined && r.language !== null && r.language !== '') problems.push('language must be a two-letter code such as en');

  let isVerified = false;
  if (typeof r.isVerified === 'boolean') isVerified = r.isVerified;
  else if (r.isVerified !== undefined && r.isVerified !== null) problems.push('isVerified must be true or false');
  // CONTRACT §13: a DIRECT review is verified only by the service's own invitation links, never by a file.
  if (isVerified && platform === 'DIRECT') problems.push(DIRECT_VERIFIED);

  let sentiment: number | null = null;
  if (r.sentiment !== undefined && r.sentiment !== null) {
    if (typeof r.sentiment === 'number' && r.sentiment >= 0 && r.sentiment <= 1) sentiment = r.sentiment;
    else problems.push('sentiment must be a number from 0 to 1, or null');
  }

  let sentimentLabel: SentimentLabel | null = null;
  if (typeof r.sentimentLabel === 'string' && r.sentimentLabel.trim() !== '') {
    const label = r.sentimentLabel.trim().toUpperCase();
    if ((SENTIMENT_LABELS as readonly string[]).includes(label)) sentimentLabel = label as SentimentLabel;
    else problems.push('sentimentLabel must be POSITIVE, NEUTRAL or NEGATIVE, or null');
  } else if (r.sentimentLabel !== undefined && r.sentimentLabel !== null && r.sentimentLabel !== '') {
    problems.push('sentimentLabel must be POSITIVE, NEUTRAL or NEGATIVE, or null');
  }

  let aiSummary: string | null = null;
  if (typeof r.aiSummary === 'string') {
    const summary = r.aiSummary.trim().toWellFormed();
    if (tooLong(summary, LIMITS.aiSummary)) problems.push(`aiSummary is longer than ${LIMITS.aiSummary} characters`);
    else if (summary !== '') aiSummary = summary;
  } else if (r.aiSummary !== undefined && r.aiSummary !== null) problems.push('aiSummary must be a string or null');

  let aiThemes: string[] = [];
  if (Array.isArray(r.aiThemes)) {
    if (r.aiThemes.length > LIMITS.aiThemes) problems.push(`aiThemes has more than ${LIMITS.aiThemes} items`);
    else if (!r.aiThemes.every((t): t is string => typeof t === 'string' && t.trim() !== '')) {
      problems.push('aiThemes must be an array of non-empty strings');
    } else {
      aiThemes = r.aiThemes.map((t) => t.trim().toWellFormed());
      if (aiThemes.some((t) => tooLong(t, LIMITS.aiTheme))) problems.push(`an aiThemes item is longer than ${LIMITS.aiTheme} characters`);
    }
  } else if (r.aiThemes !== undefined && r.aiThemes !== null) problems.push('aiThemes must be an array of strings');

  // A catalog id (CONTRACT §13); whether the catalog holds it is the import's check (it needs the store).
  let productId: string | null = null;
  if (r.productId !== undefined && r.productId !== null && r.productId !== '') {
    if (typeof r.productId === 'string' && PRODUCT_ID.test(r.productId)) productId = r.productId;
    else problems.push('productId must be a catalog product id: 1-100 characters of A-Z a-z 0-9 . _ -');
  }

  // The organization's answer (CONTRACT §15): both fields or neither; an empty text is no answer.
  let reply: ReviewReply | null = null;
  let replyText = '';
  if (typeof r.replyText === 'string') {
    replyText = r.replyText.trim().toWellFormed();
    if (tooLong(replyText, LIMITS.replyText)) problems.push(`replyText is longer than ${LIMITS.replyText} characters`);
  } else if (r.replyText !== undefined && r.replyText !== null) problems.push('replyText must be a string or null');
  const hasReplyDate = r.replyDate !== undefined && r.replyDate !== null && r.replyDate !== '';
  if (replyText !== '') {
    if (!hasReplyDate) problems.push('replyDate is required with replyText (ISO 8601)');
    else {
      const replyDate = typeof r.replyDate === 'string' ? (parseIsoDate(r.replyDate) ?? '') : '';
      if (replyDate === '') problems.push('replyDate must be an ISO 8601 date or date-time, e.g. 2026-03-02T09:00:00Z');
      else if (Date.parse(replyDate) > now.getTime() + MAX_FUTURE_MS) problems.push(`replyDate ${replyDate} is more than 24 hours in the future`);
      else reply = { text: replyText, date: replyDate };
    }
  } else if (hasReplyDate) problems.push('replyDate without replyText: give the reply\'s text, or leave both empty');

  if (problems.length > 0) return { ok: false, reason: problems.join('; ') };
  return {
    ok: true,
    value: {
      platform,
      externalId,
      authorName,
      authorAvatar,
      rating,
      content,
      date,
      url,
      language,
      isVerified,
      sentiment,
      sentimentLabel,
      aiSummary,
      aiThemes,
      productId,
      reply,
    },
  };
}
