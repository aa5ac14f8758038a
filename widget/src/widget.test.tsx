import { render } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { formatter } from './format.ts';
import { EN } from './messages.ts';
import { layoutHeight, layoutRows } from './layout-height.ts';
import type { PublicReview, PublicWidgetData } from './public-data.ts';
import { CATALOGS } from './i18n/catalogs.ts';
import { RESPONSE_FROM } from './i18n/replies.ts';
import { replies, type H } from './reply.ts';
import { h } from 'preact';
import { Review } from './review-card.tsx';
import { ReviewDialogContent } from './review-dialog.tsx';
import { Widget, columnsFor } from './widget.tsx';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const f = formatter('en-US', NOW, EN);
const noop = () => undefined;

const review = (over: Partial<PublicReview> = {}): PublicReview => ({
  id: 'r1',
  platform: 'GOOGLE',
  authorName: 'Maria Gonzalez',
  authorAvatar: 'https://img.example/m.png',
  rating: 4,
  content: 'Great shoes.',
  date: '2026-11-14T12:00:00Z',
  url: 'https://maps.example/r1',
  isVerified: true,
  language: 'en',
  ...over,
});

function data(layout: PublicWidgetData['layout'], reviews: PublicReview[], over: Partial<PublicWidgetData['options']> = {}, maxReviews = 6): PublicWidgetData {
  const options = { theme: 'light' as const, accentColor: '#4f46e5', showDates: true, locale: 'en-US', reviewLanguages: 'all' as const, ...over };
  return {
    id: 'wdg_1', layout, subject: 'Acme Shoes', options,
    summary: { averageRating: 4.25, totalReviews: 1234, ratedReviews: 1200, platforms: [{ platform: 'GOOGLE', count: 1000, averageRating: 4.3 }, { platform: 'YELP', count: 234, averageRating: 4 }] },
    reviews: reviews.slice(0, maxReviews), jsonLd: null, rows: layoutRows(layout, { maxReviews }), height: layoutHeight(layout, { maxReviews }),
  };
}

describe('Review', () => {
  it('renders names and texts as text, never markup', () => {
    const html = render(
      <Review review={review({ authorName: '<img src=x onerror=alert(1)>', content: '<script>alert(2)</script>\n"quoted" & more' })} f={f} showDates onReadMore={noop} />,
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script>alert(2)&lt;/script>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)>');
  });

  it('links to the original with rel="nofollow ugc noopener", https only', () => {
    expect(render(<Review review={review()} f={f} showDates onReadMore={noop} />)).toContain(
      '<a class="link" href="https://maps.example/r1" target="_blank" rel="nofollow ugc noopener">View on Google',
    );
    for (const url of ['javascript:alert(1)', 'http://maps.example/r1', 'data:text/html,x']) {
      const html = render(<Review review={review({ url })} f={f} showDates onReadMore={noop} />);
      expect(html).not.toContain('<a ');
    }
  });

  it('shows the avatar over https only, with initials underneath', () => {
    const withPicture = render(<Review review={review()} f={f} showDates onReadMore={noop} />);
    expect(withPicture).toMatch(/<span class="avatar"[^>]*>MG<img src="https:\/\/img.example\/m.png"/);
    const insecure = render(<Review review={review({ authorAvatar: 'http://img.example/m.png' })} f={f} showDates onReadMore={noop} />);
    expect(insecure).not.toContain('<img');
    expect(insecure).toContain('>MG</span>');
  });

  it('labels stars, marks verified reviews, shows relative dates unless turned off', () => {
    const html = render(<Review review={review()} f={f} showDates onReadMore={noop} />);
    expect(html).toContain('role="img" aria-label="4 out of 5 stars"');
    expect(html).toContain('aria-label="Verified"');
    expect(html).toContain('<time class="date" datetime="2026-11-14T12:00:00Z">last week</time>');
    expect(render(<Review review={review()} f={f} showDates={false} onReadMore={noop} />)).not.toContain('<time');
    const unrated = render(<Review review={review({ rating: null, isVerified: false })} f={f} showDates onReadMore={noop} />);
    expect(unrated).not.toContain('out of 5 stars');
    expect(unrated).not.toContain('Verified');
  });
});

describe('Widget', () => {
  const reviews = Array.from({ length: 9 }, (_, i) => review({ id: `r${i}`, authorName: `Person ${i}`, rating: 1 + (i % 5) }));

  it('renders each layout as a labelled region at exactly its reserved height', () => {
    for (const layout of ['carousel', 'grid', 'list', 'badge'] as const) {
      const d = data(layout, reviews);
      const html = render(<Widget data={d} f={f} width={1000} label="Reviews of Acme Shoes" />);
      expect(html).toContain(`aria-label="Reviews of Acme Shoes" lang="en-US" dir="ltr"`);
      expect(new RegExp(`<section class="rv ${layout} light"[^>]*style="height:${d.height}px`).test(html), layout).toBe(true);
      expect(html).toContain('>Customer reviews</h2>');
    }
  });

  it('carousel: labelled prev/pause/next, slides out of view inert', () => {
    const html = render(<Widget data={data('carousel', reviews)} f={f} width={1000} label="Reviews of Acme Shoes" />);
    expect(html).toContain('aria-roledescription="carousel"');
    expect(html).toContain('aria-label="Previous reviews" aria-disabled="true"');
    expect(html).toContain('aria-label="Next reviews"');
    expect(html).toMatch(/aria-label="(Pause|Start) automatic scrolling"/);
    expect(html.match(/aria-roledescription="slide"/g)).toHaveLength(6);
    expect(html.match(/<div[^>]* inert/g)).toHaveLength(3);
    // Slides are groups in a plain container: a list may only hold list items.
    expect(html).not.toMatch(/<ul|<li/);
  });

  it('grid and list page their reviews', () => {
    const grid = render(<Widget data={data('grid', reviews)} f={f} width={1000} label="Reviews of Acme Shoes" />);
    expect(grid.match(/<article/g)).toHaveLength(6);
    // All six fit on one page: no pager.
    expect(grid.includes('Page 1')).toBe(false);
    const narrow = render(<Widget data={data('grid', reviews)} f={f} width={400} label="Reviews of Acme Shoes" />);
    expect(narrow.match(/<article/g)).toHaveLength(2);
    expect(narrow).toContain('Page 1 of 3');
    const list = render(<Widget data={data('list', reviews, {}, 9)} f={f} width={1000} label="Reviews of Acme Shoes" />);
    expect(list.match(/<article/g)).toHaveLength(4);
  });

  it('badge: average, stars, count, platform marks', () => {
    const html = render(<Widget data={data('badge', [])} f={f} width={1000} label="Reviews of Acme Shoes" />);
    expect(html).toContain('<span class="score" aria-hidden="true">4.3</span>');
    expect(html).toContain('aria-label="4.25 out of 5 stars"');
    expect(html).toContain('1,234 reviews');
    expect(html).toContain('aria-label="Google"');
    expect(html).toContain('aria-label="Yelp"');
  });

  it('an empty widget says so at the same height', () => {
    const d = data('grid', []);
    const html = render(<Widget data={d} f={f} width={1000} label="Reviews of Acme Shoes" />);
    expect(html.includes('No reviews yet')).toBe(true);
    expect(html.includes(`height:${d.height}px`)).toBe(true);
  });

  it('only a hex accent reaches the stylesheet', () => {
    const html = render(<Widget data={data('list', reviews, { accentColor: 'red;}</style><script>' })} f={f} width={1000} label="Reviews of Acme Shoes" />);
    expect(html.includes('--a:#4f46e5;')).toBe(true);
  });

  it('columns follow the width', () => {
    expect([columnsFor(300), columnsFor(500), columnsFor(779), columnsFor(780)]).toEqual([1, 2, 2, 3]);
  });
});

describe('replies', () => {
  /** A formatter with the replies of `org` (what widget.tsx and the framed chunk set). */
  const signed = (org: string, fmt = f) => ({ ...fmt, replies: replies(h as H, org, fmt, noop) });
  const answered = review({ reply: { text: '<b>Thanks</b> & see you\nsoon', date: '2026-11-15T09:00:00.000Z' } });

  it('renders the reply folded behind a "Response from {organization}" disclosure button, as text, in the markup', () => {
    const html = render(<Review review={answered} f={signed('Acme & Co')} showDates onReadMore={noop} />);
    expect(html).toContain('<button type="button" class="rb" aria-expanded="false">Response from Acme &amp; Co</button>');
    expect(html).toContain('<p class="text reply" dir="auto" hidden>&lt;b>Thanks&lt;/b> &amp; see you\nsoon</p>');
    expect(html).not.toContain('<b>Thanks');
    // The review's own text is shown while the reply is folded.
    expect(html).toMatch(/<p class="text" lang="en" dir="auto">Great shoes.<\/p>/);
  });

  it('shows no reply without one, or without the organization that signs it (the widget does not show replies)', () => {
    expect(render(<Review review={review()} f={signed('Acme')} showDates onReadMore={noop} />)).not.toContain('reply');
    expect(render(<Review review={answered} f={f} showDates onReadMore={noop} />)).not.toContain('reply');
  });

  it('says "Response from" in every catalog\'s language, RTL ones included', () => {
    expect(Object.keys(RESPONSE_FROM).sort()).toEqual(['en', ...Object.keys(CATALOGS)].sort());
    for (const [lang, text] of Object.entries(RESPONSE_FROM)) {
      expect(text, lang).toContain('{o}');
      if (lang !== 'en') expect(text, lang).not.toBe(RESPONSE_FROM.en);
    }
    const ar = formatter('ar', NOW, CATALOGS.ar!);
    expect(render(<Review review={answered} f={signed('Acme', ar)} showDates onReadMore={noop} />)).toContain('>رد Acme</button>');
  });

  it('shows the whole reply, signed, under the review in the "Read more" dialog', () => {
    const long = 'x'.repeat(600);
    expect(render(<ReviewDialogContent review={review({ reply: { text: long, date: '2026-11-15T09:00:00.000Z' } })} f={signed('Acme')} showDates />)).toContain(
      `<p class="full reply" dir="auto"><b>Response from Acme</b>\n${long}</p>`,
    );
    expect(render(<ReviewDialogContent review={answered} f={f} showDates />)).not.toContain('reply');
  });

  it('renders replies in every framed layout from the public data (the server-rendered markup)', () => {
    for (const layout of ['carousel', 'grid', 'list'] as const) {
      const d = { ...data(layout, [answered, review({ id: 'r2' })]), organization: 'Acme' };
      const html = render(<Widget data={d} f={f} width={1040} label="Reviews of Acme Shoes" />);
      expect(html, layout).toContain('aria-expanded="false">Response from Acme</button>');
      expect(html.match(/class="rb"/g), layout).toHaveLength(1);
      expect(html.match(/<p class="text reply" dir="auto" hidden>/g), layout).toHaveLength(1);
    }
  });
});
