import { describe, it, expect } from 'vitest';
import { detectFormat, parseRecords, type ImportFormat, type ParsedRecord } from './parse-records.ts';
import { validateRecord } from './validate-record.ts';
import { MAX_RECORD_CHARS } from './text-chunks.ts';

async function* chunksOf(parts: (string | Buffer)[]): AsyncGenerator<Buffer | string> {
  for (const part of parts) yield part;
}

async function collect(format: ImportFormat, parts: (string | Buffer)[]): Promise<ParsedRecord[]> {
  const out: ParsedRecord[] = [];
  for await (const item of parseRecords(chunksOf(parts), format)) out.push(item);
  return out;
}

/** The same bytes cut at every position (two chunks), and one byte per chunk. */
function splits(text: string): Buffer[][] {
  const bytes = Buffer.from(text, 'utf8');
  const out: Buffer[][] = [];
  for (let i = 0; i <= bytes.length; i++) out.push([bytes.subarray(0, i), bytes.subarray(i)]);
  out.push([...bytes].map((b) => Buffer.from([b])));
  return out;
}

describe('detectFormat', () => {
  it('maps extensions, case-insensitively, and nothing else', () => {
    expect(detectFormat('reviews.ndjson')).toBe('ndjson');
    expect(detectFormat('REVIEWS.JSONL')).toBe('ndjson');
    expect(detectFormat('/tmp/a.b/export.json')).toBe('json');
    expect(detectFormat('x.CSV')).toBe('csv');
    expect(detectFormat('reviews.txt')).toBeNull();
    expect(detectFormat('json')).toBeNull();
    expect(detectFormat('archive.csv.gz')).toBeNull();
  });
});

describe('ndjson', () => {
  it('yields one record per line with its line number, skipping blank lines, CRLF and BOM', async () => {
    const text = '\uFEFF{"a":1}\r\n\n   \n{"b":"x"}\n{bad json}\n[1,2]\n{"c":"ünï ☕"}';
    const out = await collect('ndjson', [text]);
    expect(out.map((o) => o.line)).toEqual([1, 4, 5, 6, 7]);
    expect(out[0]!.record).toEqual({ a: 1 });
    expect(out[1]!.record).toEqual({ b: 'x' });
    expect(out[2]!.error).toMatch(/^invalid JSON/);
    expect(out[2]!.record).toBeUndefined();
    expect(out[3]!.record).toEqual([1, 2]);
    expect(out[4]!.record).toEqual({ c: 'ünï ☕' });
  });

  it('gives the same answer however the bytes are chunked (multi-byte characters included)', async () => {
    const text = '{"n":"é☕🙂"}\n\n{"n":2}\r\n{oops\n';
    const expected = await collect('ndjson', [text]);
    for (const parts of splits(text)) expect(await collect('ndjson', parts)).toEqual(expected);
  });

  it('rejects an oversized line without holding it, and carries on', async () => {
    const huge = `{"content":"${'x'.repeat(MAX_RECORD_CHARS + 10)}"}`;
    const parts = ['{"a":1}\n', ...huge.match(/[\s\S]{1,65536}/g)!, '\n{"b":2}\n'];
    const out = await collect('ndjson', parts);
    expect(out).toEqual([
      { line: 1, record: { a: 1 } },
      { line: 2, error: `record is larger than ${MAX_RECORD_CHARS} characters` },
      { line: 3, record: { b: 2 } },
    ]);
  });
});

describe('json array', () => {
  const text = [
    '[',
    '  {"platform":"GOOGLE","content":"commas, ] brackets } and \\"quotes\\" \\\\"},',
    '  {"nested":{"a":[1,{"b":"]"}]},"x":"é☕🙂"},',
    '',
    '  {"broken": tru},',
    '  42,',
    '  {"last":true}',
    ']',
    '',
  ].join('\n');

  it('streams elements with the line each starts on; a bad element does not stop the rest', async () => {
    const out = await collect('json', [text]);
    expect(out.map((o) => o.line)).toEqual([2, 3, 5, 6, 7]);
    expect(out[0]!.record).toEqual({ platform: 'GOOGLE', content: 'commas, ] brackets } and "quotes" \\' });
    expect(out[1]!.record).toEqual({ nested: { a: [1, { b: ']' }] }, x: 'é☕🙂' });
    expect(out[2]!.error).toMatch(/^invalid JSON/);
    expect(out[3]!.record).toBe(42);
    expect(out[4]!.record).toEqual({ last: true });
  });

  it('gives the same answer for the array split at every byte boundary', async () => {
    const expected = await collect('json', [text]);
    expect(expected).toHaveLength(5);
    for (const parts of splits(text)) expect(await collect('json', parts)).toEqual(expected);
  });

  it('reports structural problems with a line number', async () => {
    expect(await collect('json', ['[]'])).toEqual([]);
    expect(await collect('json', ['\uFEFF [ ] \n'])).toEqual([]);
    expect(await collect('json', ['\n\n{"a":1}'])).toEqual([{ line: 3, fileLevel: true, error: expect.stringMatching(/must be an array/) }]);
    expect(await collect('json', [''])).toEqual([{ line: 1, fileLevel: true, error: expect.stringMatching(/empty/) }]);
    expect(await collect('json', ['[{"a":1},\n]'])).toEqual([{ line: 1, record: { a: 1 } }, { line: 2, error: expect.stringMatching(/trailing comma/) }]);
    expect(await collect('json', ['[{"a":1},,{"b":2}]'])).toEqual([
      { line: 1, record: { a: 1 } },
      { line: 1, error: expect.stringMatching(/empty array element/) },
      { line: 1, record: { b: 2 } },
    ]);
    expect(await collect('json', ['[{"a":1}]\n{"b":2}'])).toEqual([{ line: 1, record: { a: 1 } }, { line: 2, error: expect.stringMatching(/after the closing/) }]);
    expect(await collect('json', ['[{"a":1},\n{"b":"unterminated}]'])).toEqual([
      { line: 1, record: { a: 1 } },
      { line: 2, error: expect.stringMatching(/end of input/) },
    ]);
    expect(await collect('json', ['[{"a":1}'])).toEqual([{ line: 1, error: expect.stringMatching(/end of input/) }]);
    expect(await collect('json', ['[{"a":1},'])).toEqual([{ line: 1, record: { a: 1 } }, { line: 1, error: expect.stringMatching(/not closed/) }]);
  });

  it('rejects an oversized element without holding it, and carries on', async () => {
    const parts = ['[{"a":1},\n{"c":"', ...Array.from({ length: 20 }, () => 'y'.repeat(60_000)), '"},\n{"b":2}]'];
    expect(await collect('json', parts)).toEqual([
      { line: 1, record: { a: 1 } },
      { line: 2, error: `record is larger than ${MAX_RECORD_CHARS} characters` },
      { line: 3, record: { b: 2 } },
    ]);
  });
});

describe('csv', () => {
  const header = 'platform,externalId,authorName,rating,content,date,isVerified,sentiment,aiThemes,url';

  it('types the cells, keeps quoted newlines, numbers records by their first line', async () => {
    const text = [
      `\uFEFF${header}`,
      'google,g1,Ana,5,"Great, really great",2026-01-02,true,0.9,service|price,https://x.example/1',
      '',
      'YELP,y1,"Bob ""the"" Builder",,"multi',
      'line ""quoted""',
      'text",2026-01-03T10:00:00Z,0,,quality; speed ;,',
      'G2,g2,Eve,abc,,2026-01-04,maybe,1.5,,',
    ].join('\r\n');
    const out = await collect('csv', [text]);
    expect(out.map((o) => o.line)).toEqual([2, 4, 7]);
    expect(out[0]!.record).toEqual({
      platform: 'google',
      externalId: 'g1',
      authorName: 'Ana',
      rating: 5,
      content: 'Great, really great',
      date: '2026-01-02',
      isVerified: true,
      sentiment: 0.9,
      aiThemes: ['service', 'price'],
      url: 'https://x.example/1',
    });
    expect(out[1]!.record).toEqual({
      platform: 'YELP',
      externalId: 'y1',
      authorName: 'Bob "the" Builder',
      rating: null,
      content: 'multi\r\nline "quoted"\r\ntext',
      date: '2026-01-03T10:00:00Z',
      isVerified: false,
      sentiment: null,
      aiThemes: ['quality', 'speed'],
      url: null,
    });
    // Unconvertible cells stay text, so validation names the field.
    expect(out[2]!.record).toMatchObject({ rating: 'abc', isVerified: 'maybe', sentiment: 1.5, content: '' });
    const reason = validateRecord(out[2]!.record);
    expect(reason.ok).toBe(false);
    if (!reason.ok) expect(reason.reason).toMatch(/rating.*isVerified.*sentiment/);
  });

  it('gives the same answer however the bytes are chunked', async () => {
    const text = `${header}\nGOOGLE,a,"Zoë 🌸",4,"x\ny",2026-01-01,,,,\nYELP,b,B,1,,2026-01-01,,,,\n`;
    const expected = await collect('csv', [text]);
    expect(expected.map((o) => o.line)).toEqual([2, 4]);
    for (const parts of splits(text)) expect(await collect('csv', parts)).toEqual(expected);
  });

  it('rejects rows with the wrong number of fields and carries on', async () => {
    const out = await collect('csv', ['platform,externalId,authorName,date,rating\nGOOGLE,1,A,2026-01-01,5\nGOOGLE,2\nGOOGLE,3,C,2026-01-01,4,extra\n']);
    expect(out.map((o) => [o.line, o.error ?? 'ok'])).toEqual([
      [2, 'ok'],
      [3, 'expected 5 fields as in the header row, found 2'],
      [4, 'expected 5 fields as in the header row, found 6'],
    ]);
    expect(validateRecord(out[0]!.record).ok).toBe(true);
  });

  it('answers a header without the required columns, or with unknown ones, with one file-level error and reads no line', async () => {
    const out = await collect('csv', ['stars,text,when\n5,Great,2026-01-01\n4,Fine,2026-01-02\n']);
    expect(out).toEqual([
      {
        line: 1,
        fileLevel: true,
        error: expect.stringMatching(/^the header row is missing the required columns "platform", "externalId", "authorName", "date" \(found: "stars", "text", "when"\), so no line was read$/),
      },
    ]);
    const unknown = await collect('csv', ['platform,externalId,authorName,date,colour\nGOOGLE,1,A,2026-01-01,red\n']);
    expect(unknown).toEqual([{ line: 1, fileLevel: true, error: expect.stringMatching(/^the header row names a column the import does not know: "colour"/) }]);
  });

  it('rejects a record with a stray quote, text after a closing quote or too many characters, and goes on with the next line', async () => {
    const big = 'x'.repeat(MAX_RECORD_CHARS + 10);
    const text = [
      header,
      'GOOGLE,1,A,5,ok,2026-01-01,,,,',
      'GOOGLE,2,B,5,a "stray" quote,2026-01-01,,,,',
      'GOOGLE,3,C,5,"closed"then text,2026-01-01,,,,',
      'GOOGLE,4,D,5,"multi\r\nline",2026-01-01,,,,',
      `GOOGLE,5,E,5,"${big}\nstill inside",2026-01-01,,,,`,
      'GOOGLE,6,F,5,fine,2026-01-01,,,,',
      '',
    ].join('\n');
    const expected = [
      [2, 'ok'],
      [3, 'invalid CSV: a quote inside an unquoted field (field 5); quote the whole field and double the quote ("")'],
      [4, 'invalid CSV: text after the closing quote of field 5; a quote inside a quoted field is written ""'],
      [5, 'ok'],
      [7, `invalid CSV: the record is larger than ${MAX_RECORD_CHARS} characters`],
      [9, 'ok'],
    ];
    const out = await collect('csv', [text]);
    expect(out.map((o) => [o.line, o.error ?? 'ok'])).toEqual(expected);
    expect(out.at(-1)!.record).toMatchObject({ externalId: '6' });
    // The same, fed in small pieces (a CRLF and the huge field cut across chunks).
    const pieces: string[] = [];
    for (let i = 0; i < text.length; i += 65_536) pieces.push(text.slice(i, i + 65_536));
    expect((await collect('csv', pieces)).map((o) => [o.line, o.error ?? 'ok'])).toEqual(expected);
  });

  it('reports a quote that is never closed at its line; the records before it stand', async () => {
    const out = await collect('csv', [`${header}\nGOOGLE,1,A,5,ok,2026-01-01,,,,\nGOOGLE,2,B,5,"never closed,2026-01-01,,,,\nGOOGLE,3,C,5,x,2026-01-01,,,,\n`]);
    expect(out[0]).toMatchObject({ line: 2, record: { externalId: '1' } });
    expect(out[1]).toEqual({ line: 3, error: 'invalid CSV: a quoted field opened on line 3 is never closed; the rest of the file was not read' });
    expect(out).toHaveLength(2);
  });

  it('stops at an unreadable header row, saying why', async () => {
    expect(await collect('csv', ['plat"form,id\nA,B\n'])).toEqual([{ line: 1, fileLevel: true, error: expect.stringMatching(/^invalid CSV: a quote inside an unquoted field .*needs a header row/) }]);
  });

  it('needs a header row, with unique names', async () => {
    expect(await collect('csv', [''])).toEqual([{ line: 1, fileLevel: true, error: expect.stringMatching(/header row/) }]);
    expect(await collect('csv', ['platform,platform\nA,B\n'])).toEqual([{ line: 1, fileLevel: true, error: expect.stringMatching(/twice/) }]);
  });
});

describe('huge inputs stream in bounded memory', () => {
  const N = 200_000;
  const content = 'Lovely coffee, friendly staff and a calm place to work. '.repeat(16); // ~900 chars
  const record = (i: number) => ({
    platform: ['GOOGLE', 'YELP', 'FACEBOOK'][i % 3],
    externalId: `ext-${i}`,
    authorName: `Author ${i}`,
    rating: i % 7 === 0 ? null : 1 + (i % 5),
    content,
    date: '2026-01-02T03:04:05Z',
    url: `https://reviews.example.com/${i}`,
    // One record in ten leaves the language to detection, as real exports often do.
    ...(i % 10 === 0 ? {} : { language: 'en' }),
    isVerified: i % 2 === 0,
    sentiment: (i % 100) / 100,
    aiThemes: ['service', 'coffee'],
  });

  async function* generate(format: ImportFormat): AsyncGenerator<string> {
    const csvEscape = (v: unknown) => (v === null || v === undefined ? '' : `"${String(v).replaceAll('"', '""')}"`);
    const cols = ['platform', 'externalId', 'authorName', 'rating', 'content', 'date', 'url', 'language', 'isVerified', 'sentiment', 'aiThemes'];
    if (format === 'json') yield '[\n';
    if (format === 'csv') yield `${cols.join(',')}\n`;
    let buffer = '';
    for (let i = 0; i < N; i++) {
      const r = record(i);
      if (format === 'csv') {
        const row = r as Record<string, unknown>;
        buffer += cols.map((c) => csvEscape(c === 'aiThemes' ? r.aiThemes.join('|') : row[c])).join(',') + '\n';
      } else buffer += JSON.stringify(r) + (format === 'json' && i < N - 1 ? ',\n' : '\n');
      if (buffer.length > 256 * 1024) {
        yield buffer;
        buffer = '';
      }
    }
    if (format === 'json') buffer += ']\n';
    yield buffer;
  }

  for (const format of ['ndjson', 'json', 'csv'] as const) {
    it(`${format}: ${N} records of ~1 KB (~200 MB) through parser + validator`, async () => {
      global.gc?.();
      const baseline = process.memoryUsage().heapUsed;
      let peak = baseline;
      let valid = 0;
      let lastLine = 0;
      const start = performance.now();
      for await (const item of parseRecords(generate(format), format)) {
        expect(item.error).toBeUndefined();
        const checked = validateRecord(item.record);
        if (checked.ok) valid++;
        lastLine = item.line;
        if (valid % 5000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
      const seconds = (performance.now() - start) / 1000;
      console.log(
        `[import ${format}] ${N} records in ${seconds.toFixed(2)} s: ${Math.round(N / seconds)} records/s (parse + validate); heap growth ${((peak - baseline) / 1e6).toFixed(0)} MB`,
      );
      expect(valid).toBe(N);
      expect(lastLine).toBe(format === 'ndjson' ? N : N + 1);
      // Holding the input or the records would need well over 200 MB.
      expect(peak - baseline).toBeLessThan(120e6);
    }, 120_000);
  }
});
