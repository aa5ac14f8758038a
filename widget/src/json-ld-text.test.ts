import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonLdText } from './json-ld-text.ts';

describe('jsonLdText', () => {
  it('escapes <, >, &, U+2028 and U+2029 as \\uXXXX', () => {
    const text = jsonLdText({ a: '</script><script>alert(1)</script>', b: 'Tom & Jerry', c: 'x\u2028y\u2029z', d: '<!-- -->' });
    expect(text).toBe(
      '{"a":"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e","b":"Tom \\u0026 Jerry","c":"x\\u2028y\\u2029z","d":"\\u003c!-- --\\u003e"}',
    );
  });

  it('escapes keys too', () => {
    expect(jsonLdText({ '<k>': 1 })).toBe('{"\\u003ck\\u003e":1}');
  });

  it('never emits "undefined"', () => {
    expect(jsonLdText(undefined)).toBe('null');
    expect(jsonLdText(() => 1)).toBe('null');
  });

  it('round-trips any JSON value and never contains the unsafe characters', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, s) => {
        const doc = { value, s, tricky: `${s}</script>\u2028` };
        const text = jsonLdText(doc);
        expect(text).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(doc)));
      }),
    );
  });
});
