import { describe, it, expect } from 'vitest';
import { DIRECT_VERIFIED, LIMITS, parseIsoDate, validateRecord } from './validate-record.ts';
import { csvCell } from './csv-records.ts';
import { HOSTILE_TEXTS } from '../fixtures.ts';

const good = {
  platform: 'google',
  externalId: ' abc-1 ',
  authorName: '  Ana García ',
  authorAvatar: 'https://img.example.com/a.png',
  rating: 5,
  content: 'The espresso is excellent and the staff are lovely.',
  date: '2026-03-01T10:00:00+02:00',
  url: 'http://example.com/r/1',
  language: 'EN-us',
  isVerified: true,
  sentiment: 0.92,
  sentimentLabel: 'positive',
  aiSummary: ' Loved the espresso. ',
  aiThemes: [' coffee ', 'staff'],
};

function reasonOf(patch: Record<string, unknown>, drop: string[] = []): string {
  const raw: Record<string, unknown> = { ...good, ...patch };
  for (const k of drop) delete raw[k];
  const result = validateRecord(raw);
  if (result.ok) throw new Error(`expected a rejection for ${JSON.stringify(patch)}`);
  return result.reason;
}

describe('validateRecord', () => {
  it('accepts a full record and normalizes it', () => {
    expect(validateRecord(good)).toEqual({
      ok: true,
      value: {
        platform: 'GOOGLE',
        externalId: 'abc-1',
        authorName: 'Ana García',
        authorAvatar: 'https://img.example.com/a.png',
        rating: 5,
        content: 'The espresso is excellent and the staff are lovely.',
        date: '2026-03-01T08:00:00.000Z',
        url: 'http://example.com/r/1',
        language: 'en',
        isVerified: true,
        sentiment: 0.92,
        sentimentLabel: 'POSITIVE',
        aiSummary: 'Loved the espresso.',
        aiThemes: ['coffee', 'staff'],
        productId: null,
        reply: null,
      },
    });
  });

  it('accepts the minimal record with defaults', () => {
    const result = validateRecord({ platform: 'FACEBOOK', externalId: 123, authorName: 'Bo', date: '2026-01-05' });
    expect(result).toEqual({
      ok: true,
      value: {
        platform: 'FACEBOOK',
        externalId: '123',
        authorName: 'Bo',
        authorAvatar: null,
        rating: null,
        content: '',
        date: '2026-01-05T00:00:00.000Z',
        url: null,
        language: null,
        isVerified: false,
        sentiment: null,
        sentimentLabel: null,
        aiSummary: null,
        aiThemes: [],
        productId: null,
        reply: null,
      },
    });
  });

  it('keeps a productId written as a catalog id, and rejects one that cannot be (the catalog check is the import\'s)', () => {
    const base = { platform: 'DIRECT', externalId: 'd1', authorName: 'Bo', date: '2026-01-05' };
    expect(validateRecord({ ...base, productId: 'Shoe.red_42' })).toMatchObject({ ok: true, value: { productId: 'Shoe.red_42' } });
    expect(validateRecord({ ...base, productId: '' })).toMatchObject({ ok: true, value: { productId: null } });
    for (const productId of ['a b', 'x/y', 'x'.repeat(101), 42, ['a']]) {
      expect(validateRecord({ ...base, productId })).toEqual({ ok: false, reason: 'productId must be a catalog product id: 1-100 characters of A-Z a-z 0-9 . _ -' });
    }
  });

  it('rejects isVerified true on platform DIRECT (only invitation links verify one), and keeps it on other platforms', () => {
    const base = { externalId: 'd1', authorName: 'Bo', date: '2026-01-05' };
    for (const platform of ['DIRECT', 'direct', ' Direct ']) {
      expect(validateRecord({ ...base, platform, isVerified: true })).toEqual({ ok: false, reason: DIRECT_VERIFIED });
    }
    expect(DIRECT_VERIFIED).toMatch(/^isVerified cannot be true on platform DIRECT: only the service's invitation links verify/);
    for (const isVerified of [false, null, undefined]) {
      expect(validateRecord({ ...base, platform: 'DIRECT', isVerified })).toMatchObject({ ok: true, value: { platform: 'DIRECT', isVerified: false } });
    }
    expect(validateRecord({ ...base, platform: 'TRUSTPILOT', isVerified: true })).toMatchObject({ ok: true, value: { isVerified: true } });
  });

  it('keeps a reply given as replyText and replyDate (both or neither; an empty text is none), and names what is wrong with one', () => {
    const base = { platform: 'GOOGLE', externalId: 'g1', authorName: 'Bo', date: '2026-01-05' };
    const now = new Date('2026-02-01T00:00:00Z');
    expect(validateRecord({ ...base, replyText: '  Thank you, Bo!\n<b>See you</b>  ', replyDate: '2026-01-06T10:00:00+01:00' }, now)).toMatchObject({
      ok: true,
      value: { reply: { text: 'Thank you, Bo!\n<b>See you</b>', date: '2026-01-06T09:00:00.000Z' } },
    });
    expect(validateRecord({ ...base, replyText: '   ', replyDate: null }, now)).toMatchObject({ ok: true, value: { reply: null } });
    expect(validateRecord({ ...base, replyText: null }, now)).toMatchObject({ ok: true, value: { reply: null } });
    const reason = (patch: Record<string, unknown>) => {
      const r = validateRecord({ ...base, ...patch }, now);
      return r.ok ? 'accepted' : r.reason;
    };
    expect(reason({ replyText: 'Thanks', replyDate: 'yesterday' })).toBe('replyDate must be an ISO 8601 date or date-time, e.g. 2026-03-02T09:00:00Z');
    expect(reason({ replyText: 'Thanks', replyDate: '2026-02-31' })).toBe('replyDate must be an ISO 8601 date or date-time, e.g. 2026-03-02T09:00:00Z');
    expect(reason({ replyText: 'Thanks', replyDate: 20260106 })).toBe('replyDate must be an ISO 8601 date or date-time, e.g. 2026-03-02T09:00:00Z');
    expect(reason({ replyText: 'Thanks' })).toBe('replyDate is required with replyText (ISO 8601)');
    expect(reason({ replyDate: '2026-01-06' })).toBe("replyDate without replyText: give the reply's text, or leave both empty");
    expect(reason({ replyText: 'Thanks', replyDate: '2026-03-01' })).toBe('replyDate 2026-03-01T00:00:00.000Z is more than 24 hours in the future');
    expect(reason({ replyText: { html: '<b>x</b>' }, replyDate: '2026-01-06' })).toMatch(/^replyText must be a string or null/);
    expect(reason({ replyText: 'x'.repeat(20_001), replyDate: '2026-01-06' })).toBe('replyText is longer than 20000 characters');
  });

  it.each([
    [{ platform: undefined }, /platform is required/],
    [{ platform: 'GOO GLE' }, /platform must be an identifier/],
    [{ platform: '1GOOGLE' }, /platform must be an identifier/],
    [{ platform: 'A'.repeat(33) }, /platform must be an identifier/],
    [{ platform: 42 }, /platform is required/],
    [{ externalId: '' }, /externalId is required/],
    [{ externalId: '   ' }, /externalId is required/],
    [{ externalId: null }, /externalId is required/],
    [{ externalId: 1.5 }, /externalId must be a string/],
    [{ externalId: { id: 1 } }, /externalId must be a string/],
    [{ externalId: 'x'.repeat(LIMITS.externalId + 1) }, /externalId is longer than 200/],
    [{ authorName: '' }, /authorName is required/],
    [{ authorName: ['A'] }, /authorName is required/],
    [{ authorName: 'n'.repeat(201) }, /authorName is longer than 200/],
    [{ rating: 0 }, /rating must be an integer from 1 to 5/],
    [{ rating: 6 }, /rating must be an integer from 1 to 5/],
    [{ rating: 4.5 }, /rating must be an integer from 1 to 5/],
    [{ rating: '5' }, /rating must be an integer from 1 to 5/],
    [{ rating: Number.NaN }, /rating must be an integer from 1 to 5/],
    [{ content: 'c'.repeat(LIMITS.content + 1) }, /content is longer than 20000/],
    [{ content: 42 }, /content must be a string/],
    [{ date: undefined }, /date is required/],
    [{ date: 'yesterday' }, /date must be an ISO 8601/],
    [{ date: '2026-02-30' }, /date must be an ISO 8601/],
    [{ date: '2026-13-01' }, /date must be an ISO 8601/],
    [{ date: '2026-01-01T24:00:00Z' }, /date must be an ISO 8601/],
    [{ date: '01/02/2026' }, /date must be an ISO 8601/],
    [{ date: 1767225600000 }, /date must be an ISO 8601 string/],
    [{ date: '  ' }, /date must be an ISO 8601/],
    [{ url: 'javascript:alert(1)' }, /url must use http or https, not javascript/],
    [{ url: 'data:text/html,<script>alert(1)</script>' }, /url must use http or https/],
    [{ url: 'not a url' }, /url must be an http\(s\) URL/],
    [{ url: `https://e.com/${'a'.repeat(2100)}` }, /url is longer than 2048/],
    [{ authorAvatar: 'ftp://e.com/a.png' }, /authorAvatar must use http or https/],
    [{ authorAvatar: 7 }, /authorAvatar must be an http\(s\) URL/],
    [{ language: 'english' }, /language must be a two-letter code/],
    [{ language: 'e' }, /language must be a two-letter code/],
    [{ language: 5 }, /language must be a two-letter code/],
    [{ isVerified: 'yes' }, /isVerified must be true or false/],
    [{ isVerified: 1 }, /isVerified must be true or false/],
    [{ sentiment: 1.01 }, /sentiment must be a number from 0 to 1/],
    [{ sentiment: -0.1 }, /sentiment must be a number from 0 to 1/],
    [{ sentiment: '0.5' }, /sentiment must be a number from 0 to 1/],
    [{ sentimentLabel: 'HAPPY' }, /sentimentLabel must be POSITIVE, NEUTRAL or NEGATIVE/],
    [{ sentimentLabel: 1 }, /sentimentLabel must be/],
    [{ aiSummary: 's'.repeat(501) }, /aiSummary is longer than 500/],
    [{ aiSummary: { text: 'x' } }, /aiSummary must be a string or null/],
    [{ aiThemes: 'coffee' }, /aiThemes must be an array of strings/],
    [{ aiThemes: ['ok', 3] }, /aiThemes must be an array of non-empty strings/],
    [{ aiThemes: ['ok', ' '] }, /aiThemes must be an array of non-empty strings/],
    [{ aiThemes: Array.from({ length: 21 }, (_, i) => `t${i}`) }, /aiThemes has more than 20 items/],
    [{ aiThemes: ['t'.repeat(101)] }, /an aiThemes item is longer than 100/],
    [{ id: 'rev_1' }, /unknown field "id"/],
    [{ Rating: 5 }, /unknown field "Rating"/],
  ] as [Record<string, unknown>, RegExp][])('rejects %j', (patch, reason) => {
    const drop = Object.entries(patch).filter(([, v]) => v === undefined).map(([k]) => k);
    expect(reasonOf(patch, drop)).toMatch(reason);
  });

  it('names every problem of a record, and every unknown field', () => {
    const reason = reasonOf({ rating: 9, date: 'soon', colour: 'red', size: 1, __proto__x: 1 });
    expect(reason).toContain('rating must be');
    expect(reason).toContain('date must be');
    expect(reason).toContain('unknown fields "colour", "size", "__proto__x"');
    const proto = validateRecord(JSON.parse('{"__proto__":{"polluted":1},"platform":"G2","externalId":"1","authorName":"A","date":"2026-01-01"}'));
    expect(proto).toEqual({ ok: false, reason: 'unknown field "__proto__"' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rejects a date more than 24 hours in the future, with a reason', () => {
    const now = new Date('2026-11-23T12:00:00Z');
    const at = (date: string) => validateRecord({ ...good, date }, now);
    expect(at('9999-12-31')).toEqual({ ok: false, reason: 'date 9999-12-31T00:00:00.000Z is more than 24 hours in the future' });
    expect(at('2026-11-24T12:00:01Z').ok).toBe(false);
    // Within a day ahead (time zones, clocks): kept.
    expect(at('2026-11-24T12:00:00Z').ok).toBe(true);
    expect(at('2026-11-24').ok).toBe(true);
  });

  it('rejects what is not an object', () => {
    for (const raw of [null, 42, 'text', [good], undefined]) expect(validateRecord(raw)).toEqual({ ok: false, reason: 'a record must be a JSON object' });
  });

  it('keeps hostile text as data (escaping is the renderer’s job) and repairs lone surrogates', () => {
    for (const text of HOSTILE_TEXTS) {
      const result = validateRecord({ ...good, content: text, authorName: `${text}x` });
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.value.content).toBe(text);
    }
    const broken = validateRecord({ ...good, content: 'a\ud800b', aiThemes: ['\udc00'] });
    expect(broken.ok && broken.value.content).toBe('a\ufffdb');
    expect(broken.ok && broken.value.aiThemes).toEqual(['\ufffd']);
  });

  it('counts characters as code points: 20,000 emoji fit', () => {
    expect(validateRecord({ ...good, content: '🙂'.repeat(LIMITS.content) }).ok).toBe(true);
    expect(validateRecord({ ...good, content: '🙂'.repeat(LIMITS.content + 1) }).ok).toBe(false);
  });

  it('treats empty optional values as absent', () => {
    const result = validateRecord({ ...good, authorAvatar: '', url: null, sentimentLabel: '', aiSummary: '  ', aiThemes: null, sentiment: null, rating: null, language: '' });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.value).toMatchObject({ authorAvatar: null, url: null, sentimentLabel: null, aiSummary: null, aiThemes: [], sentiment: null, rating: null });
      expect(result.value.language).toBeNull();
    }
  });
});

describe('language', () => {
  it('keeps a given language (normalized) and leaves an absent one to enrichment', () => {
    expect(validateRecord({ ...good, language: 'DE-at' })).toMatchObject({ ok: true, value: { language: 'de' } });
    expect(validateRecord({ ...good, language: undefined })).toMatchObject({ ok: true, value: { language: null } });
  });
});

describe('parseIsoDate', () => {
  it.each([
    ['2026-03-01', '2026-03-01T00:00:00.000Z'],
    ['2026-03-01T10:00', '2026-03-01T10:00:00.000Z'],
    ['2026-03-01T10:00:05.123456Z', '2026-03-01T10:00:05.123Z'],
    ['2026-03-01 10:00:05,5', '2026-03-01T10:00:05.500Z'],
    ['2026-03-01T00:30:00+01:00', '2026-02-28T23:30:00.000Z'],
    ['2026-03-01T00:30:00-0530', '2026-03-01T06:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['0001-01-01', '0001-01-01T00:00:00.000Z'],
  ])('%s → %s', (input, expected) => expect(parseIsoDate(input)).toBe(expected));

  it('answers a canonical date-time (its fast path) as the full parse does', () => {
    const pad = (n: number, w: number): string => String(n).padStart(w, '0');
    let checked = 0;
    for (let i = 0; i < 5000; i++) {
      // Every field also out of range now and then: 00-13 months, 00-32 days, 00-24 hours, 00-60 minutes and seconds.
      const y = (i * 7919) % 10000;
      const text = `${pad(y, 4)}-${pad((i * 31) % 14, 2)}-${pad((i * 17) % 33, 2)}T${pad((i * 13) % 25, 2)}:${pad((i * 7) % 61, 2)}:${pad((i * 11) % 61, 2)}.${pad(i % 1000, 3)}Z`;
      // A leading space skips the fast path: the full parse trims it.
      expect(parseIsoDate(text)).toBe(parseIsoDate(` ${text}`));
      if (parseIsoDate(text) !== null) checked++;
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it.each(['2025-02-29', '2026-04-31', '2026-00-10', '2026-01-01T10:60', '2026-01-01T10:00:00+24:00', '2026-1-1', '+02026-01-01', '2026-01-01T10:00:00 Z', '0000-01-01T00:30:00+01:00'])(
    'rejects %s',
    (input) => expect(parseIsoDate(input)).toBeNull(),
  );
});

describe('csvCell', () => {
  it('types CSV text per column', () => {
    expect(csvCell('rating', '')).toBeNull();
    expect(csvCell('rating', ' 4 ')).toBe(4);
    expect(csvCell('rating', '4.0')).toBe(4);
    expect(csvCell('rating', 'four')).toBe('four');
    expect(csvCell('sentiment', '.5')).toBe(0.5);
    expect(csvCell('sentiment', '1e-1')).toBe(0.1);
    expect(csvCell('sentiment', '0x1')).toBe('0x1');
    expect(csvCell('isVerified', 'TRUE')).toBe(true);
    expect(csvCell('isVerified', '0')).toBe(false);
    expect(csvCell('isVerified', '')).toBeUndefined();
    expect(csvCell('aiThemes', 'a| b ;c;;')).toEqual(['a', 'b', 'c']);
    expect(csvCell('aiThemes', '')).toEqual([]);
    expect(csvCell('url', '')).toBeNull();
    expect(csvCell('content', '  spaced  ')).toBe('  spaced  ');
    expect(csvCell('authorName', '')).toBeUndefined();
  });
});
