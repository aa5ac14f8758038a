/**
 * The builder's unsaved widget: what the form holds (text as typed, so that
 * a half-typed number is shown back with the server's error rather than lost),
 * and the request body it becomes. The server validates it with the admin
 * API's own rules; the form adds only the browser's built-in constraints.
 */
import type { WidgetRecord } from '../../api.ts';

export const LAYOUTS = [
  { value: 'carousel', label: 'Carousel', hint: 'One row that slides' },
  { value: 'grid', label: 'Grid', hint: 'Cards in rows' },
  { value: 'list', label: 'List', hint: 'One review under another' },
  { value: 'badge', label: 'Badge', hint: 'Average, count and platforms' },
] as const;

/** The schema.org types a widget's subject may have: the store's own list. */
export { SUBJECT_TYPES } from '../../../api/store/types.ts';

/** Languages the widget has labels for (widget/src/i18n/catalogs.ts, plus English). */
export const WIDGET_LANGUAGES = ['ar', 'cs', 'da', 'de', 'el', 'en', 'es', 'fi', 'fr', 'he', 'hu', 'id', 'it', 'ja', 'ko', 'nb', 'nl', 'pl', 'pt', 'ru', 'sv', 'tr', 'uk', 'zh'];

/** The six platforms of the spec: offered even before any review of theirs is imported. */
export const KNOWN_PLATFORMS = ['GOOGLE', 'YELP', 'TRUSTPILOT', 'G2', 'CAPTERRA', 'FACEBOOK'];

export interface Draft {
  name: string;
  layout: WidgetRecord['layout'];
  theme: WidgetRecord['options']['theme'];
  accentColor: string;
  maxReviews: string;
  /** '' = any rating, unrated included. */
  minRating: string;
  /** null = every platform, including ones imported later. */
  platforms: string[] | null;
  /** null = every review; else only those these sources collected (a chain's location). */
  sourceIds: string[] | null;
  hideEmpty: boolean;
  showDates: boolean;
  showReplies: boolean;
  /** '' = the visitor's (page or browser) language. */
  locale: string;
  reviewLanguages: 'all' | 'page';
  jsonLd: WidgetRecord['options']['jsonLd'];
  /** What the reviews are about: the organization, one catalog product, or the product of the page. */
  productMode: 'none' | 'one' | 'page';
  /** The product ('one'), or the one the preview shows ('page'); '' = none picked. */
  productId: string;
  jsonLdSources: 'direct' | 'all';
  subjectType: string;
  subjectName: string;
  subjectUrl: string;
  subjectImage: string;
  subjectBrand: string;
}

/** A new widget: the admin API's defaults (api/admin/widgets.ts DEFAULT_WIDGET_OPTIONS). */
export const NEW_DRAFT: Draft = {
  name: '',
  layout: 'carousel',
  theme: 'light',
  accentColor: '#4f46e5',
  maxReviews: '12',
  minRating: '',
  platforms: null,
  sourceIds: null,
  hideEmpty: false,
  showDates: true,
  showReplies: true,
  locale: '',
  reviewLanguages: 'all',
  jsonLd: 'auto',
  productMode: 'none',
  productId: '',
  jsonLdSources: 'direct',
  subjectType: 'Product',
  subjectName: '',
  subjectUrl: '',
  subjectImage: '',
  subjectBrand: '',
};

export function draftOf(w: WidgetRecord): Draft {
  const o = w.options;
  return {
    name: w.name,
    layout: w.layout,
    theme: o.theme,
    accentColor: o.accentColor,
    maxReviews: String(o.maxReviews),
    minRating: o.minRating === null ? '' : String(o.minRating),
    platforms: o.platforms,
    sourceIds: o.sourceIds ?? null,
    hideEmpty: o.hideEmpty,
    showDates: o.showDates,
    showReplies: o.showReplies ?? true,
    locale: o.locale ?? '',
    reviewLanguages: o.reviewLanguages ?? 'all',
    jsonLd: o.jsonLd,
    productMode: o.productFrom === 'page' ? 'page' : o.productId ? 'one' : 'none',
    productId: o.productId ?? '',
    jsonLdSources: o.jsonLdSources ?? 'direct',
    subjectType: w.subject.type,
    subjectName: w.subject.name,
    subjectUrl: w.subject.url ?? '',
    subjectImage: w.subject.image ?? '',
    subjectBrand: w.subject.brand ?? '',
  };
}

/** A whole number as a number; anything else as typed, for the server to name the problem. */
const integer = (text: string): number | string => (/^\s*\d{1,6}\s*$/.test(text) ? Number(text) : text);

/** The body of POST /widgets, PATCH /widgets/{id} and POST /widgets/preview: every field, so an edit can also clear one. */
export function bodyOf(d: Draft) {
  return {
    name: d.name,
    layout: d.layout,
    subject: {
      type: d.subjectType,
      // Empty: named after the widget, as the admin API does when no subject name is given.
      name: d.subjectName.trim() || d.name,
      url: d.subjectUrl.trim() || null,
      image: d.subjectImage.trim() || null,
      brand: d.subjectBrand.trim() || null,
    },
    options: {
      theme: d.theme,
      accentColor: d.accentColor,
      maxReviews: integer(d.maxReviews),
      minRating: d.minRating === '' ? null : Number(d.minRating),
      platforms: d.platforms,
      hideEmpty: d.hideEmpty,
      showDates: d.showDates,
      showReplies: d.showReplies,
      locale: d.locale.trim() || null,
      reviewLanguages: d.reviewLanguages,
      jsonLd: d.jsonLd,
      productId: d.productMode === 'one' ? d.productId : null,
      productFrom: d.productMode === 'page' ? ('page' as const) : null,
      jsonLdSources: d.jsonLdSources,
      // A product widget shows its product's reviews, whatever the source: the choice applies to the organization's.
      sourceIds: d.productMode === 'none' ? d.sourceIds : null,
    },
  };
}

/** What the preview renders: a widget not named yet still previews (Save asks for the name). */
export function previewBodyOf(d: Draft) {
  const body = bodyOf(d);
  const name = body.name.trim() || 'New widget';
  // One product not picked yet: previewed as the organization's; the page's product: the one picked to preview with.
  const options = d.productMode === 'one' && !d.productId ? { ...body.options, productId: null } : body.options;
  return {
    ...body,
    name,
    subject: { ...body.subject, name: body.subject.name.trim() || name },
    options,
    ...(d.productMode === 'page' && d.productId && { previewProductId: d.productId }),
  };
}

/** Field of the server's 400 details (`options.maxReviews`) → id of the control that edits it. */
export const FIELD_IDS: Record<string, string> = {
  name: 'w-name',
  layout: 'w-layout-carousel',
  'subject.type': 'w-subject-type',
  'subject.name': 'w-subject-name',
  'subject.url': 'w-subject-url',
  'subject.image': 'w-subject-image',
  'subject.brand': 'w-subject-brand',
  'options.theme': 'w-theme',
  'options.accentColor': 'w-accent-text',
  'options.maxReviews': 'w-max-reviews',
  'options.minRating': 'w-min-rating',
  'options.platforms': 'w-platforms-all',
  'options.sourceIds': 'w-sources-all',
  'options.hideEmpty': 'w-hide-empty',
  'options.showDates': 'w-show-dates',
  'options.showReplies': 'w-show-replies',
  'options.locale': 'w-locale',
  'options.reviewLanguages': 'w-review-languages',
  'options.jsonLd': 'w-json-ld',
  'options.productId': 'w-product',
  'options.productFrom': 'w-product-none',
  'options.jsonLdSources': 'w-json-ld-sources',
};

/** Labels the person sees, for error messages that name a field. */
export const FIELD_LABELS: Record<string, string> = {
  name: 'Widget name',
  layout: 'Layout',
  'subject.type': 'Type of what is reviewed',
  'subject.name': 'Name of what is reviewed',
  'subject.url': 'Page address',
  'subject.image': 'Image address',
  'subject.brand': 'Brand',
  'options.theme': 'Theme',
  'options.accentColor': 'Accent colour',
  'options.maxReviews': 'Reviews shown',
  'options.minRating': 'Minimum stars',
  'options.platforms': 'Platforms',
  'options.sourceIds': 'Sources',
  'options.hideEmpty': 'Leave out reviews without text',
  'options.showDates': 'Show dates',
  'options.showReplies': 'Show replies',
  'options.locale': 'Widget language',
  'options.reviewLanguages': 'Reviews by language',
  'options.jsonLd': 'Rich results markup',
  'options.productId': 'Product',
  'options.productFrom': 'Reviews about',
  'options.jsonLdSources': 'Stars from',
};

/** Field problems (field → the server's words, "must be an integer from 1 to 50") as sentences that name the field: "Reviews shown must be an integer from 1 to 50." */
export function fieldErrors(problems: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, message] of Object.entries(problems)) out[field] = `${FIELD_LABELS[field] ?? field} ${message}${/[.!?]$/.test(message) ? '' : '.'}`;
  return out;
}
