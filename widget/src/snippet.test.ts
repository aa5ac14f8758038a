import { describe, expect, it } from 'vitest';
import { loaderScriptFor, loaderUrl, snippetFor } from './snippet.ts';

describe('snippetFor', () => {
  it('is a container that reserves the height, then the async loader', () => {
    expect(snippetFor({ origin: 'https://reviews.example.com/api/v1', widgetId: 'wdg_abc', height: 314 })).toBe(
      '<div class="rv-widget" data-rv-widget="wdg_abc" style="min-height:314px" data-rv-height="314"></div>' +
        '<script async src="https://reviews.example.com/widget/loader.js"></script>',
    );
  });

  it('escapes the id and refuses origins that are not http(s)', () => {
    const html = snippetFor({ origin: 'https://x.example', widgetId: '"><script>alert(1)</script>', height: 10 });
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('data-rv-widget="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(() => snippetFor({ origin: 'javascript:alert(1)', widgetId: 'w', height: 1 })).toThrow();
    expect(() => snippetFor({ origin: 'https://x.example', widgetId: 'w', height: Number.NaN })).toThrow();
  });

  it('uses only the origin of the URL given', () => {
    expect(loaderUrl('https://a.example:8443/some/path?q=1')).toBe('https://a.example:8443/widget/loader.js');
  });
});

describe('loaderScriptFor', () => {
  it('is plain JavaScript (no tags) naming the widget, the height and the loader', () => {
    const js = loaderScriptFor({ origin: 'https://reviews.example.com', widgetId: 'wdg_abc', height: 314 });
    expect(js).not.toMatch(/<\/?script/i);
    expect(js).toContain('"wdg_abc"');
    expect(js).toContain('"https://reviews.example.com/widget/loader.js"');
    expect(js).toContain('h = 314');
    expect(() => new Function(js)).not.toThrow();
  });

  it('cannot be broken out of by the widget id, inside or outside a <script> element', () => {
    const js = loaderScriptFor({ origin: 'https://x.example', widgetId: '</script><script>alert(1)//"\'\u2028', height: 1 });
    expect(js).not.toContain('</script>');
    expect(() => new Function(js)).not.toThrow();
  });

  it('never carries an API key', () => {
    const js = loaderScriptFor({ origin: 'https://x.example', widgetId: 'w', height: 1 }) + snippetFor({ origin: 'https://x.example', widgetId: 'w', height: 1 });
    expect(js).not.toMatch(/key|token|authorization|bearer/i);
  });
});
