/**
 * Believable demo reviews for a fictional business, Acme Coffee Roasters (a
 * café, an online bean shop, and a wholesale ordering portal that cafés
 * review on G2 and Capterra). Deterministic for a seed, relative to `now`:
 * about 300 reviews over the last two years, more of them recent, mostly
 * 4-5 stars, mostly English with some Spanish, French and German, Facebook
 * recommendations without stars. The records carry no AI fields of their own
 * (`demoRecords`); `demoReviews` computes them with the enrichment every
 * import uses (api/intelligence/enrich.ts), so the demo shows what an import
 * of the same file would.
 */
import { enrich } from '../intelligence/enrich.ts';
import type { ReviewDraft } from '../reviews/import/validate-record.ts';
import type { ReviewInput } from '../store/types.ts';
import { seededRandom } from './seeded-random.ts';

export const DEMO_BUSINESS = 'Acme Coffee Roasters';
const COUNT = 300;
const DAY = 24 * 60 * 60 * 1000;

type Lang = 'en' | 'es' | 'fr' | 'de';
type Tone = 'good' | 'mixed' | 'bad';
/** A sentence and the topic it is about (it only keeps a review from repeating itself). */
type Line = [text: string, theme: string];

const CAFE: Record<Lang, Record<Tone, Line[]>> = {
  en: {
    good: [
      ['The Ethiopian Yirgacheffe pour-over is the best coffee I have had in this city.', 'coffee'],
      ['Baristas remember my order and always have time for a chat.', 'staff'],
      ['Beans arrive two days after roasting and the whole kitchen smells amazing.', 'freshness'],
      ['Cozy room, big windows and plenty of outlets, perfect for a morning of work.', 'atmosphere'],
      ['The subscription is easy to pause when I travel, no emails back and forth.', 'subscription'],
      ['Their oat milk flat white is perfectly balanced, never bitter.', 'coffee'],
      ['Shipping was quick and the bags are fully compostable.', 'shipping'],
      ['Prices are fair for the quality you get.', 'price'],
      ['The cardamom buns alone are worth the trip.', 'pastries'],
      ['They walked me through dialing in my home grinder, super patient.', 'staff'],
      ['Decaf that actually tastes like coffee, finally.', 'coffee'],
    ],
    mixed: [
      ['Great coffee, but the line on Saturday mornings is long.', 'wait time'],
      ['Seating is limited, so I usually take my drink to go.', 'atmosphere'],
      ['A bit pricey, although the beans are excellent.', 'price'],
      ['One bag was missing from my order; support sorted it out within a day.', 'support'],
      ['Music is a little loud for meetings.', 'atmosphere'],
      ['The light roast is lovely, the dark roast not really my thing.', 'coffee'],
    ],
    bad: [
      ['Waited 25 minutes for a latte that arrived lukewarm.', 'wait time'],
      ['My subscription renewed after I cancelled and the refund took two weeks.', 'billing'],
      ['The roast date on my bag was over a month old.', 'freshness'],
      ['Staff seemed annoyed when I asked about decaf options.', 'staff'],
      ['The package arrived torn and half the beans were on the floor of the box.', 'shipping'],
    ],
  },
  es: {
    good: [
      ['El café de especialidad está buenísimo y lo tuestan aquí mismo.', 'coffee'],
      ['Los baristas son muy amables y te explican cada origen.', 'staff'],
      ['Ambiente tranquilo, ideal para trabajar un rato.', 'atmosphere'],
      ['El envío llegó en dos días y el café olía increíble.', 'shipping'],
    ],
    mixed: [
      ['El café es excelente, pero los precios son algo altos.', 'price'],
      ['Hay pocas mesas y a veces hay que esperar.', 'wait time'],
    ],
    bad: [['Mi pedido llegó tarde y nadie respondió a mis correos.', 'support']],
  },
  fr: {
    good: [
      ['Excellent café, torréfié sur place, on sent la différence.', 'coffee'],
      ["Personnel chaleureux et toujours de bon conseil.", 'staff'],
      ['Les viennoiseries à la cardamome sont délicieuses.', 'pastries'],
      ['Livraison rapide et emballage compostable, bravo.', 'shipping'],
    ],
    mixed: [
      ['Très bon café mais un peu cher pour le quartier.', 'price'],
      ["Beaucoup de monde le week-end, il faut être patient.", 'wait time'],
    ],
    bad: [["Commande incomplète et aucune réponse du service client pendant une semaine.", 'support']],
  },
  de: {
    good: [
      ['Sehr guter Kaffee, frisch geröstet und mit viel Liebe zubereitet.', 'coffee'],
      ['Das Team ist freundlich und berät einen gerne.', 'staff'],
      ['Gemütliches Café, perfekt zum Arbeiten.', 'atmosphere'],
      ['Die Lieferung kam schnell und die Bohnen waren super frisch.', 'freshness'],
    ],
    mixed: [
      ['Toller Kaffee, aber die Preise sind recht hoch.', 'price'],
      ['Am Wochenende ist es sehr voll und laut.', 'atmosphere'],
    ],
    bad: [['Das Abo wurde trotz Kündigung verlängert, sehr ärgerlich.', 'billing']],
  },
};

/** G2 and Capterra review the wholesale ordering portal: English, software language. */
const PORTAL: Record<Tone, Line[]> = {
  good: [
    ['Reordering beans for our three cafés now takes five minutes in the wholesale portal.', 'ordering'],
    ['Standing orders and delivery schedules just work, week after week.', 'automation'],
    ['Invoices sync to our accounting software without any manual steps.', 'integrations'],
    ['Our account manager helped us dial in a new espresso recipe for the menu.', 'support'],
    ['Onboarding our baristas took an afternoon.', 'onboarding'],
  ],
  mixed: [
    ['Reporting is basic; we export to spreadsheets for anything serious.', 'reporting'],
    ['The mobile view could use some work on small screens.', 'usability'],
    ['Permissions are all or nothing, we would like finer roles per location.', 'usability'],
  ],
  bad: [
    ['The portal was down during a busy Monday and we could not place orders.', 'reliability'],
    ['Minimum order quantities are too high for a single small café.', 'pricing'],
  ],
};

const OPENERS: Record<Lang, Record<Tone, string[]>> = {
  en: { good: ['Absolutely love this place.', 'Five stars, no question.', 'Our new favourite.', ''], mixed: ['Pretty good overall.', 'Decent, with a few caveats.', ''], bad: ['Disappointed.', 'Not what it used to be.', ''] },
  es: { good: ['¡Me encanta!', 'Muy recomendable.', ''], mixed: ['Bien en general.', ''], bad: ['Decepcionante.', ''] },
  fr: { good: ['Un vrai coup de cœur.', 'Je recommande !', ''], mixed: ['Plutôt bien.', ''], bad: ['Déçu.', ''] },
  de: { good: ['Absolut empfehlenswert!', 'Mein Lieblingscafé.', ''], mixed: ['Insgesamt ganz gut.', ''], bad: ['Leider enttäuscht.', ''] },
};
const CLOSERS: Record<Lang, Record<Tone, string[]>> = {
  en: { good: ['Highly recommend!', 'Will be back next week.', ''], mixed: ['Still worth a visit.', ''], bad: ['Probably will not order again.', ''] },
  es: { good: ['¡Volveremos!', ''], mixed: [''], bad: ['No volveré.', ''] },
  fr: { good: ['On reviendra !', ''], mixed: [''], bad: [''] },
  de: { good: ['Gerne wieder!', ''], mixed: [''], bad: [''] },
};

const PORTAL_OPENERS: Record<Tone, string[]> = { good: ['Saves us hours every week.', 'Solid tool for our cafés.', ''], mixed: ['Does the job.', ''], bad: ['Frustrating lately.', ''] };
const PORTAL_CLOSERS: Record<Tone, string[]> = { good: ['Would recommend to any café group.', ''], mixed: ['Good value overall.', ''], bad: ['Looking at alternatives.', ''] };

const NAMES: Record<Lang, string[]> = {
  en: ['Emma Johnson', 'Liam Carter', 'Olivia Brooks', 'Noah Patel', 'Ava Thompson', 'Mason Lee', 'Sophia Nguyen', 'Ethan Walker', 'Isabella Reed', 'Lucas Kim', 'Mia Robinson', 'James O’Connor', 'Harper Diaz', 'Benjamin Shaw', 'Chloe Bennett', 'Daniel Park', 'Grace Miller', 'Henry Adams', 'Zoe Campbell', 'Jack Murphy'],
  es: ['Lucía Fernández', 'Mateo García', 'Sofía Martínez', 'Diego López', 'Valentina Ruiz', 'Javier Moreno'],
  fr: ['Camille Dubois', 'Louis Martin', 'Léa Bernard', 'Hugo Lefèvre', 'Chloé Moreau', 'Jules Petit'],
  de: ['Lena Schmidt', 'Jonas Müller', 'Mia Schneider', 'Felix Wagner', 'Hannah Becker', 'Paul Hoffmann'],
};
const PORTAL_AUTHORS = ['Sarah M., Café Owner', 'Tom R., Operations Manager', 'Priya S., Head Barista', 'Marcus L., Purchasing Lead', 'Elena V., Bakery Owner', 'Chris D., Restaurant Manager'];

const PLATFORMS: [platform: string, weight: number][] = [
  ['GOOGLE', 30],
  ['YELP', 17],
  ['TRUSTPILOT', 17],
  ['FACEBOOK', 14],
  ['G2', 11],
  ['CAPTERRA', 11],
];


/** The demo reviews with their AI fields computed as an import computes them, for an organization of `language`. */
export function demoReviews(now: Date, language = 'en', seed = 1): ReviewInput[] {
  return demoRecords(now, seed).map((record) => ({ ...record, ...enrich(record, language) }));
}

/** The demo reviews as an import file would hold them: no AI fields (the platforms give none). */
export function demoRecords(now: Date, seed = 1): (ReviewDraft & { language: string })[] {
  const rnd = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const weighted = <T>(items: readonly [T, number][]): T => {
    let roll = rnd() * items.reduce((s, [, w]) => s + w, 0);
    for (const [item, w] of items) if ((roll -= w) < 0) return item;
    return items[items.length - 1]![0];
  };
  const token = (alphabet: string, length: number): string => Array.from({ length }, () => pick([...alphabet])).join('');
  const used = new Set<string>();
  const reviews: (ReviewDraft & { language: string })[] = [];

  while (reviews.length < COUNT) {
    const platform = weighted(PLATFORMS);
    const portal = platform === 'G2' || platform === 'CAPTERRA';
    const lang: Lang = portal ? 'en' : weighted<Lang>([['en', 80], ['es', 8], ['fr', 6], ['de', 6]]);
    // Facebook recommendations carry no stars: recommend / does not recommend.
    const recommendation = platform === 'FACEBOOK' && rnd() < 0.7;
    const rating = recommendation ? null : weighted<number>([[5, 55], [4, 25], [3, 10], [2, 6], [1, 4]]);
    const tone: Tone = rating === null ? (rnd() < 0.9 ? 'good' : 'bad') : rating >= 4 ? 'good' : rating === 3 ? 'mixed' : 'bad';

    const pool = portal ? PORTAL : CAFE[lang];
    const lines: Line[] = [];
    const sentences = weighted<number>([[0, 4], [1, 30], [2, 34], [3, 22], [5, 10]]);
    for (let i = 0; i < sentences; i++) {
      // Mostly on-tone; a 4-star review often has one reservation.
      const from = tone === 'good' && i > 0 && rnd() < 0.25 ? pool.mixed : pool[tone];
      const line = pick(from);
      if (!lines.includes(line)) lines.push(line);
    }
    const content =
      lines.length === 0
        ? ''
        : [pick(portal ? PORTAL_OPENERS[tone] : OPENERS[lang][tone]), ...lines.map(([text]) => text), pick(portal ? PORTAL_CLOSERS[tone] : CLOSERS[lang][tone])]
            .filter((s) => s !== '')
            .join(' ');

    const age = Math.floor(730 * DAY * Math.pow(rnd(), 1.6));
    const date = new Date(now.getTime() - age - Math.floor(rnd() * 8 * 3600_000));
    const externalId = externalIdFor(platform, token);
    if (used.has(`${platform}:${externalId}`)) continue;
    used.add(`${platform}:${externalId}`);

    // The draws that once made up AI fields, kept so that every other field stays as it was.
    if (content !== '' && rnd() < 0.75) rnd();
    const author = portal ? pick(PORTAL_AUTHORS) : pick(NAMES[lang]);

    reviews.push({
      platform,
      externalId,
      authorName: author,
      // No avatar URLs: the demo must not make visitors' browsers call a third-party host; the widget shows initials.
      authorAvatar: null,
      rating,
      content,
      date: date.toISOString(),
      url: reviewUrl(platform, externalId),
      language: lang,
      isVerified: portal || platform === 'TRUSTPILOT' ? rnd() < 0.7 : rnd() < 0.2,
      sentiment: null,
      sentimentLabel: null,
      aiSummary: null,
      aiThemes: [],
    });
  }
  return reviews.sort((a, b) => (a.date < b.date ? 1 : -1));
}

function externalIdFor(platform: string, token: (alphabet: string, length: number) => string): string {
  const digits = '0123456789';
  const base62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  switch (platform) {
    case 'GOOGLE':
      return `ChdDSUhN${token(base62, 22)}`;
    case 'YELP':
      return token(`${base62}_-`, 22);
    case 'TRUSTPILOT':
      return token('0123456789abcdef', 24);
    case 'FACEBOOK':
      return `1${token(digits, 15)}`;
    default:
      return `${1 + Number(token('12345678', 1))}${token(digits, 6)}`;
  }
}

function reviewUrl(platform: string, externalId: string): string {
  switch (platform) {
    case 'GOOGLE':
      return `https://www.google.com/maps/reviews/data=!4m5!14m4!1m3!1m2!1s${externalId}`;
    case 'YELP':
      return `https://www.yelp.com/biz/acme-coffee-roasters-portland?hrid=${externalId}`;
    case 'TRUSTPILOT':
      return `https://www.trustpilot.com/reviews/${externalId}`;
    case 'FACEBOOK':
      return `https://www.facebook.com/acmecoffeeroasters/posts/${externalId}`;
    case 'G2':
      return `https://www.g2.com/products/acme-wholesale-portal/reviews/acme-wholesale-portal-review-${externalId}`;
    default:
      return `https://www.capterra.com/p/${externalId}/Acme-Wholesale-Portal/reviews/`;
  }
}
