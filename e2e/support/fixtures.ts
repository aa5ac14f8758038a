/**
 * Canned public widget data for the end-to-end tests: realistic reviews for
 * every layout, and hostile ones whose names and texts try to run script.
 */
import { layoutHeight, layoutRows } from '../../widget/src/layout-height.ts';
import type { PublicReview, PublicWidgetData, PublicWidgetOptions } from '../../widget/src/public-data.ts';
import type { WidgetLayout } from '../../api/store/types.ts';

/** Avatars under this origin are answered by the tests (route), never the network. */
export const AVATAR_ORIGIN = 'https://avatars.example';

const DAY = 86_400_000;

const TEXTS = [
  'Ordered on a Sunday, arrived Tuesday. The fit is true to size and the leather softened after a week of wear. Would buy again without hesitation.',
  'Customer service sorted out a billing mix-up in ten minutes. Friendly, quick, and they followed up by email the next day to make sure everything was fine.',
  'Good product, slightly pricey. Setup took longer than the guide suggests, mostly because the app kept asking me to update.',
  'We switched our whole team over in March. Reporting is miles ahead of what we had before, and the export to CSV finally works the way accountants expect it to. The only thing missing is a proper dark mode for the dashboard, which our night shift keeps asking about. Otherwise excellent.',
  'Great.',
  'Honest review: the first unit was faulty, the replacement has been flawless for six months. Support handled the exchange well.',
  'The staff remembered my name on my second visit. Coffee is excellent, the pastries sell out early so go before ten.',
  'Decent, but the delivery window was missed twice and nobody called ahead.',
  'Five stars for the onboarding call alone. Our account manager knew our use case before we explained it.',
  'Works as described. Battery life is closer to two days than the advertised three, but that is still better than anything else at this price.',
  'Bought this as a gift, and it was a hit. Packaging felt premium and the note we added was printed nicely.',
  'Solid software with a learning curve. Once it clicks, it saves hours every week.',
];

const PEOPLE: [string, string | null][] = [
  ['Maria Gonzalez', `${AVATAR_ORIGIN}/maria.svg`],
  ['James O’Connor', null],
  ['Priya Raman', `${AVATAR_ORIGIN}/priya.svg`],
  ['Lukas Müller', null],
  ['Sophie Martin', `${AVATAR_ORIGIN}/broken.svg`],
  ['Chen Wei', null],
  ['Aisha Bello', `${AVATAR_ORIGIN}/aisha.svg`],
  ['Tom Becker', null],
  ['Olivia Smith', null],
  ['Kenji Tanaka', `${AVATAR_ORIGIN}/kenji.svg`],
  ['Fatima Zahra', null],
  ['Noah Williams', null],
];

const PLATFORMS = ['GOOGLE', 'TRUSTPILOT', 'YELP', 'G2', 'CAPTERRA', 'FACEBOOK'];

export function sampleReviews(count: number, now = Date.now()): PublicReview[] {
  return Array.from({ length: count }, (_, i) => {
    const platform = PLATFORMS[i % PLATFORMS.length]!;
    const [authorName, authorAvatar] = PEOPLE[i % PEOPLE.length]!;
    return {
      id: `rev_${String(i + 1).padStart(4, '0')}`,
      platform,
      authorName,
      authorAvatar,
      rating: platform === 'FACEBOOK' ? null : [5, 5, 4, 5, 3, 4, 5, 2, 5, 4, 5, 4][i % 12]!,
      content: TEXTS[i % TEXTS.length]!,
      date: new Date(now - (i * 9 + 2) * DAY - i * 3_600_000).toISOString(),
      url: i % 4 === 3 ? null : `https://reviews.example/${platform.toLowerCase()}/${i + 1}`,
      isVerified: i % 3 !== 2,
      language: 'en',
    };
  });
}

export const DEFAULT_OPTIONS: PublicWidgetOptions = {
  theme: 'light',
  accentColor: '#4f46e5',
  showDates: true,
  locale: 'en-US',
  reviewLanguages: 'all',
};

/** The display options, and how many reviews the server would pick (it applies that itself). */
export type FixtureOptions = Partial<PublicWidgetOptions> & { maxReviews?: number; subject?: string };

export function widgetData(
  id: string,
  layout: WidgetLayout,
  { maxReviews = 9, subject = 'Acme Trail Shoe', ...options }: FixtureOptions = {},
  reviews: PublicReview[] = sampleReviews(12),
  jsonLd: object | null = null,
): PublicWidgetData {
  const opts = { ...DEFAULT_OPTIONS, ...options };
  const rated = reviews.filter((r) => r.rating !== null);
  const average = rated.length ? Math.round((rated.reduce((s, r) => s + r.rating!, 0) / rated.length) * 100) / 100 : null;
  const byPlatform = new Map<string, PublicReview[]>();
  for (const r of reviews) byPlatform.set(r.platform, [...(byPlatform.get(r.platform) ?? []), r]);
  return {
    id,
    layout,
    subject,
    options: opts,
    summary: {
      averageRating: average,
      totalReviews: reviews.length * 26,
      ratedReviews: rated.length * 26,
      platforms: [...byPlatform].map(([platform, list]) => ({ platform, count: list.length * 26, averageRating: 4.5 })),
    },
    reviews: reviews.slice(0, maxReviews),
    jsonLd,
    rows: layoutRows(layout, { maxReviews }),
    height: layoutHeight(layout, { maxReviews }),
  };
}

/** Texts that would run script if they were ever interpreted as HTML. */
export const HOSTILE_STRINGS = [
  '<img src=x onerror="window.__pwned=1;alert(1)">',
  '<script>window.__pwned=2;alert(2)</script>',
  '</script><script>window.__pwned=3</script>',
  '"><svg onload="window.__pwned=4">',
  '<a href="javascript:window.__pwned=5">click</a>',
  '{{constructor.constructor("window.__pwned=6")()}}',
  '\u2028\u2029<!-- -->',
];

export function hostileData(id: string): PublicWidgetData {
  const reviews = sampleReviews(6).map((r, i) => ({
    ...r,
    authorName: HOSTILE_STRINGS[i % HOSTILE_STRINGS.length]!,
    content: `${HOSTILE_STRINGS[(i + 1) % HOSTILE_STRINGS.length]} ${HOSTILE_STRINGS[(i + 2) % HOSTILE_STRINGS.length]}`,
    // A server bug letting these through must not produce live links.
    url: i === 0 ? 'javascript:window.__pwned=7' : i === 1 ? 'http://insecure.example/x' : r.url,
    authorAvatar: i === 2 ? 'javascript:window.__pwned=8' : r.authorAvatar,
  }));
  const jsonLd = {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: 'Hostile </script><script>window.__pwned=9</script>',
    review: reviews.map((r) => ({ '@type': 'Review', reviewBody: r.content, author: { '@type': 'Person', name: r.authorName } })),
  };
  return widgetData(id, 'grid', { maxReviews: 6 }, reviews, jsonLd);
}

export const PRODUCT_JSON_LD = {
  '@context': 'https://schema.org',
  '@type': 'Product',
  name: 'Acme Trail Shoe',
  aggregateRating: { '@type': 'AggregateRating', ratingValue: 4.4, reviewCount: 312, bestRating: 5, worstRating: 1 },
};

/** A review text per language, for pages in those languages. */
const LOCAL_TEXTS: Record<string, string> = {
  fr: 'Livraison rapide, chaussures confortables dès le premier jour. Le service client a répondu en moins d’une heure. Je recommande sans hésiter à toute la famille.',
  de: 'Schnelle Lieferung, die Schuhe waren vom ersten Tag an bequem. Der Kundendienst hat innerhalb einer Stunde geantwortet. Klare Empfehlung für alle Wanderer.',
  ja: '配送が早く、初日から履き心地が良かったです。カスタマーサービスも一時間以内に返信してくれました。家族にも勧めたいと思います。',
  ar: 'توصيل سريع وحذاء مريح من اليوم الأول. رد فريق خدمة العملاء خلال ساعة واحدة. أنصح به بشدة لكل من يحب المشي في الطبيعة.',
  he: 'משלוח מהיר, נעליים נוחות כבר מהיום הראשון. שירות הלקוחות ענה תוך שעה. ממליץ בחום לכל מי שאוהב טיולים.',
};

/** Sample reviews, every other one in `lang` (the rest stay English, as on a real page). */
export function translatedReviews(lang: string): PublicReview[] {
  return sampleReviews(12).map((r, i) => (i % 2 === 0 ? { ...r, content: LOCAL_TEXTS[lang]!, language: lang } : r));
}

/** Ratings whose stars the card and the dialog must draw alike: every whole star and a half. */
export const STAR_RATINGS = [1, 2, 3, 4, 5, 3.5];

/** A grid of long reviews (so each has "Read more"), one per rating of STAR_RATINGS. */
export function ratingsData(id: string): PublicWidgetData {
  const reviews = sampleReviews(STAR_RATINGS.length).map((r, i) => ({ ...r, platform: 'GOOGLE', rating: STAR_RATINGS[i]!, content: `${TEXTS[3]} ${TEXTS[0]}` }));
  return widgetData(id, 'grid', { maxReviews: STAR_RATINGS.length }, reviews);
}

/** Reviews answered by the organization (CONTRACT §15): a short reply, a long one, a hostile one, and one without. */
export function repliedReviews(lang: 'en' | 'ar'): PublicReview[] {
  const date = new Date(Date.now() - 3 * DAY).toISOString();
  const replies = lang === 'ar'
    ? ['شكرًا لك! سعداء بأن الحذاء أعجبك.', 'نأسف لتأخر الطلب. ' + 'لقد تواصلنا مع شركة الشحن وسنرسل لك قسيمة خصم للطلب القادم. '.repeat(4)]
    : ['Thank you, Sofia! Glad the shoes fit.', 'We are sorry the parcel was late. '.concat('We have spoken to the carrier, refunded the delivery and sent a voucher for your next order. '.repeat(4))];
  return sampleReviews(6).map((r, i) => ({
    ...r,
    language: lang,
    ...(i === 0 && { reply: { text: replies[0]!, date } }),
    ...(i === 1 && { reply: { text: replies[1]!, date } }),
    ...(i === 2 && { reply: { text: '<img src=x onerror="window.__pwned=9"> Thanks!', date } }),
  }));
}

/** Every widget the fixture origin serves, by id. */
export function allFixtures(): Record<string, PublicWidgetData> {
  const list = [
    widgetData('wdg_carousel', 'carousel', {}, sampleReviews(12), PRODUCT_JSON_LD),
    widgetData('wdg_grid', 'grid', { maxReviews: 9 }, sampleReviews(12), { ...PRODUCT_JSON_LD, name: 'Grid product' }),
    widgetData('wdg_list', 'list', { maxReviews: 8, accentColor: '#0f766e' }),
    widgetData('wdg_badge', 'badge'),
    widgetData('wdg_badge_auto', 'badge', { locale: null }),
    widgetData('wdg_dark', 'carousel', { theme: 'dark', accentColor: '#22d3ee' }),
    widgetData('wdg_dark_grid', 'grid', { theme: 'dark', accentColor: '#f472b6', maxReviews: 6 }),
    widgetData('wdg_dark_badge', 'badge', { theme: 'dark' }),
    // An accent far too light for white backgrounds: the widget must darken it.
    widgetData('wdg_yellow', 'list', { accentColor: '#ffff00', maxReviews: 3 }),
    widgetData('wdg_empty', 'grid', { maxReviews: 3 }, []),
    widgetData('wdg_german', 'list', { locale: 'de-DE', maxReviews: 3 }),
    hostileData('wdg_hostile'),
    ratingsData('wdg_ratings'),
    { ...widgetData('wdg_replies', 'carousel', { maxReviews: 6 }, repliedReviews('en')), organization: 'Acme Outdoor' },
    { ...widgetData('wdg_replies_ar', 'list', { locale: 'ar', maxReviews: 4 }, repliedReviews('ar')), organization: 'Acme Outdoor' },
    // Short reviews without links: nothing in the carousel's track can take focus.
    widgetData('wdg_nolinks', 'carousel', { maxReviews: 6 }, sampleReviews(6).map((r) => ({ ...r, url: null, content: 'Comfortable from day one.' }))),
    // Four layouts of one product, as on /demo.
    widgetData('wdg_four_carousel', 'carousel', {}, sampleReviews(12), PRODUCT_JSON_LD),
    widgetData('wdg_four_grid', 'grid', { maxReviews: 6 }, sampleReviews(12), PRODUCT_JSON_LD),
    widgetData('wdg_four_list', 'list', { maxReviews: 4 }, sampleReviews(12), PRODUCT_JSON_LD),
    widgetData('wdg_four_badge', 'badge', {}, sampleReviews(12), PRODUCT_JSON_LD),
    ...['fr', 'de', 'ja', 'ar', 'he'].map((lang) => widgetData(`wdg_auto_${lang}`, 'carousel', { locale: null }, translatedReviews(lang), PRODUCT_JSON_LD)),
    ...['fr', 'de', 'ja', 'ar'].map((lang) => widgetData(`wdg_auto_${lang}_list`, 'list', { locale: null, maxReviews: 3 }, translatedReviews(lang))),
    // A long count line ("200,305 reviews · 1 hidden by the owner") in the longest languages, for narrow headers.
    ...['de', 'fi', 'ru', 'en'].flatMap((lang) =>
      (['carousel', 'list'] as const).map((layout) => {
        const data = widgetData(`wdg_narrow_${lang}_${layout}`, layout, { locale: lang, maxReviews: 6 });
        return { ...data, summary: { ...data.summary, totalReviews: 200_305, hiddenReviews: 1 } };
      }),
    ),
  ];
  return Object.fromEntries(list.map((d) => [d.id, d]));
}
