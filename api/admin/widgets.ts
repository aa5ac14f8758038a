/** Widgets: a layout, a subject (for JSON-LD) and display options, with defaults. */
import { newId } from '../store/ids.ts';
import { productNotFound } from '../products/service.ts';
import { productIdProblem } from '../products/validate.ts';
import { badRequest } from '../errors.ts';
import { MAX_SOURCES } from '../sources/limits.ts';
import {
  JSON_LD_SOURCES,
  REVIEW_LANGUAGES,
  SUBJECT_TYPES,
  WIDGET_LAYOUTS,
  type Store,
  type SubjectType,
  type Widget,
  type WidgetLayout,
  type WidgetOptions,
  type WidgetPatch,
  type WidgetSubject,
} from '../store/types.ts';
import { Checker, objectBody } from './validation.ts';

export const DEFAULT_WIDGET_OPTIONS: WidgetOptions = {
  theme: 'light',
  accentColor: '#4f46e5',
  maxReviews: 12,
  minRating: null,
  platforms: null,
  hideEmpty: false,
  showDates: true,
  locale: null,
  jsonLd: 'auto',
  reviewLanguages: 'all',
  showReplies: true,
  productId: null,
  productFrom: null,
  jsonLdSources: 'direct',
  sourceIds: null,
};

export interface WidgetInput {
  orgId: string;
  name: string;
  layout?: WidgetLayout;
  subject?: Partial<WidgetSubject>;
  options?: Partial<WidgetOptions>;
}

/** The widget an input describes, with every default filled in, not yet stored (the dashboard previews it as is). */
export function newWidget(input: WidgetInput, id: string = newId('wdg')): Widget {
  const now = new Date().toISOString();
  return {
    id,
    orgId: input.orgId,
    name: input.name,
    layout: input.layout ?? 'carousel',
    subject: {
      type: input.subject?.type ?? 'Organization',
      name: input.subject?.name ?? input.name,
      url: input.subject?.url ?? null,
      image: input.subject?.image ?? null,
      brand: input.subject?.brand ?? null,
    },
    options: { ...DEFAULT_WIDGET_OPTIONS, ...input.options },
    createdAt: now,
    updatedAt: now,
  };
}

export async function createWidget(store: Store, input: WidgetInput): Promise<Widget> {
  await checkWidgetProduct(store, input.orgId, input.options);
  const widget = newWidget(input);
  await store.widgets.create(widget);
  return widget;
}

const OPTION_FIELDS = ['theme', 'accentColor', 'maxReviews', 'minRating', 'platforms', 'hideEmpty', 'showDates', 'locale', 'jsonLd', 'reviewLanguages', 'productId', 'productFrom', 'jsonLdSources', 'showReplies', 'sourceIds'];
const SUBJECT_FIELDS = ['type', 'name', 'url', 'image', 'brand'];

/** Problems found by `inner` are reported under `prefix` (`subject.name`, `options.maxReviews`): a form can point at the field. */
function nested<T>(check: Checker, prefix: string, inner: (c: Checker) => T): T {
  const c = new Checker();
  const out = inner(c);
  for (const d of c.details) check.fail(d.parameter === prefix || d.parameter.startsWith(`${prefix}.`) ? d.parameter : `${prefix}.${d.parameter}`, d.message);
  return out;
}

function parseSubject(check: Checker, raw: unknown): Partial<WidgetSubject> | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    check.fail('subject', 'must be an object');
    return undefined;
  }
  const body = raw as Record<string, unknown>;
  for (const key of Object.keys(body)) if (!SUBJECT_FIELDS.includes(key)) check.fail(`subject.${key}`, 'is not a known field');
  const type = body.type;
  let subjectType: SubjectType | undefined;
  if (type !== undefined) {
    if (typeof type === 'string' && (SUBJECT_TYPES as readonly string[]).includes(type)) subjectType = type as SubjectType;
    else check.fail('subject.type', `must be one of ${SUBJECT_TYPES.join(', ')}`);
  }
  const name = check.string(body, 'name', { max: 200 });
  if (name === '') check.fail('subject.name', 'must not be empty');
  const url = check.httpsUrl(body, 'url');
  const image = check.httpsUrl(body, 'image');
  const brand = check.string(body, 'brand', { max: 200 });
  return {
    ...(subjectType !== undefined && { type: subjectType }),
    ...(name !== undefined && { name }),
    ...(url !== undefined && { url }),
    ...(image !== undefined && { image }),
    ...(brand !== undefined && { brand: brand === '' ? null : brand }),
  };
}

/** Intl throws a RangeError on text that is not a language tag at all ("not a locale!"): that is a 400, never a 500. */
function supportedLocale(tag: string): boolean {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([tag]).length > 0;
  } catch {
    return false;
  }
}

function parseOptions(check: Checker, raw: unknown): Partial<WidgetOptions> | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    check.fail('options', 'must be an object');
    return undefined;
  }
  const body = raw as Record<string, unknown>;
  const out: Partial<WidgetOptions> = {};
  for (const key of Object.keys(body)) if (!OPTION_FIELDS.includes(key)) check.fail(`options.${key}`, 'is not a known option');
  const theme = check.oneOf(body, 'theme', ['light', 'dark', 'auto'] as const);
  if (theme) out.theme = theme;
  if (body.accentColor !== undefined) {
    if (typeof body.accentColor === 'string' && /^#[0-9a-fA-F]{6}$/.test(body.accentColor)) out.accentColor = body.accentColor.toLowerCase();
    else check.fail('options.accentColor', 'must be a hex colour like #4f46e5');
  }
  const maxReviews = check.integer(body, 'maxReviews', 1, 50);
  if (maxReviews !== undefined && maxReviews !== null) out.maxReviews = maxReviews;
  const minRating = check.integer(body, 'minRating', 1, 5);
  if (minRating !== undefined) out.minRating = minRating;
  if (body.platforms !== undefined) {
    const p = body.platforms;
    if (p === null) out.platforms = null;
    else if (Array.isArray(p) && p.length > 0 && p.length <= 20 && p.every((x) => typeof x === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,31}$/.test(x))) {
      out.platforms = [...new Set((p as string[]).map((x) => x.toUpperCase()))];
    } else check.fail('options.platforms', 'must be a non-empty list of platform identifiers, or null for all');
  }
  const hideEmpty = check.boolean(body, 'hideEmpty');
  if (hideEmpty !== undefined) out.hideEmpty = hideEmpty;
  const showDates = check.boolean(body, 'showDates');
  if (showDates !== undefined) out.showDates = showDates;
  if (body.locale !== undefined) {
    const l = body.locale;
    if (l === null) out.locale = null;
    else if (typeof l === 'string' && l.length <= 35 && supportedLocale(l)) out.locale = Intl.getCanonicalLocales(l)[0]!;
    else check.fail('options.locale', 'must be a supported BCP 47 locale such as en-US, or null');
  }
  const jsonLd = check.oneOf(body, 'jsonLd', ['auto', 'on', 'off'] as const);
  if (jsonLd) out.jsonLd = jsonLd;
  const reviewLanguages = check.oneOf(body, 'reviewLanguages', REVIEW_LANGUAGES);
  if (reviewLanguages) out.reviewLanguages = reviewLanguages;
  const showReplies = check.boolean(body, 'showReplies');
  if (showReplies !== undefined) out.showReplies = showReplies;
  parseProductOptions(check, body, out);
  const jsonLdSources = check.oneOf(body, 'jsonLdSources', JSON_LD_SOURCES);
  if (jsonLdSources) out.jsonLdSources = jsonLdSources;
  if (body.sourceIds !== undefined) {
    const ids = body.sourceIds;
    if (ids === null) out.sourceIds = null;
    else if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_SOURCES || !ids.every((x) => typeof x === 'string' && /^src_[0-9A-Za-z]{1,40}$/.test(x))) {
      check.fail('options.sourceIds', `must be a list of 1 to ${MAX_SOURCES} source ids (src_…) of this organization, or null for every review`);
    } else out.sourceIds = [...new Set(ids as string[])];
  }
  return out;
}

/**
 * `productId` (a catalog id, or null) and `productFrom` ("page", or null): a widget shows one
 * product, the page's product, or neither; never both. That the id is in the catalog is
 * checked against the store (checkWidgetProduct).
 */
function parseProductOptions(check: Checker, body: Record<string, unknown>, out: Partial<WidgetOptions>): void {
  if (body.productId !== undefined) {
    const id = body.productId;
    const problem = id === null ? null : typeof id === 'string' ? productIdProblem(id, 'productId') : 'must be a catalog product id (a string) or null';
    if (problem) check.fail('options.productId', problem);
    else out.productId = id as string | null;
  }
  if (body.productFrom !== undefined) {
    if (body.productFrom === null || body.productFrom === 'page') out.productFrom = body.productFrom;
    else check.fail('options.productFrom', 'must be "page" (the product named by the container\'s data-product-id) or null');
  }
  if (typeof out.productId === 'string' && out.productFrom === 'page') {
    check.fail('options.productFrom', 'a widget shows one product (productId) or the page\'s product (productFrom: "page"), not both');
  }
}

/**
 * The widget's options after a change: a product chosen by id leaves "the page's product",
 * and the other way round, so the stored widget never names both.
 */
export function exclusiveProductPatch(options: Partial<WidgetOptions> | undefined): Partial<WidgetOptions> | undefined {
  if (!options) return options;
  if (typeof options.productId === 'string') return { ...options, productFrom: null };
  if (options.productFrom === 'page') return { ...options, productId: null };
  return options;
}

/**
 * 404 `product_not_found` when the options name a product the organization's catalog lacks;
 * 400 when they name sources it does not have (checkWidgetSources).
 */
export async function checkWidgetProduct(store: Store, orgId: string, options: Partial<WidgetOptions> | undefined): Promise<void> {
  const id = options?.productId;
  if (typeof id === 'string' && !(await store.products.get(orgId, id))) throw productNotFound(id);
  await checkWidgetSources(store, orgId, options);
}

/**
 * 400 when `sourceIds` names a source this organization does not have (another organization's
 * is as unknown as one that never existed: ids do not leak). A source removed later stays
 * named: its reviews stay too (CONTRACT §11), and the widget keeps showing them.
 */
export async function checkWidgetSources(store: Store, orgId: string, options: Partial<WidgetOptions> | undefined): Promise<void> {
  const ids = options?.sourceIds;
  if (!Array.isArray(ids)) return;
  const own = new Set((await store.sources.listByOrg(orgId)).map((s) => s.id));
  const unknown = ids.filter((id) => !own.has(id));
  if (unknown.length > 0) {
    throw badRequest(`options.sourceIds names ${unknown.length === 1 ? 'a source' : 'sources'} this organization does not have: ${unknown.join(', ')}. Choose among its sources (sources list).`, [
      { parameter: 'options.sourceIds', message: `not a source of this organization: ${unknown.join(', ')}` },
    ]);
  }
}

export function parseWidgetCreate(raw: unknown): WidgetInput {
  const body = objectBody(raw);
  const check = new Checker();
  for (const key of Object.keys(body)) if (!['orgId', 'name', 'layout', 'subject', 'options'].includes(key)) check.fail(key, 'is not a known field');
  const orgId = check.string(body, 'orgId', { required: true, max: 64 });
  const name = check.string(body, 'name', { required: true, max: 200 });
  const layout = check.oneOf(body, 'layout', WIDGET_LAYOUTS);
  const subject = nested(check, 'subject', (c) => parseSubject(c, body.subject));
  const options = nested(check, 'options', (c) => parseOptions(c, body.options));
  check.done();
  return { orgId: orgId!, name: name!, ...(layout && { layout }), ...(subject && { subject }), ...(options && { options }) };
}

/** The fields a request changes, and only those: the store merges them into the widget as stored. */
export function parseWidgetUpdate(raw: unknown): WidgetPatch {
  const body = objectBody(raw);
  const check = new Checker();
  for (const key of Object.keys(body)) if (!['name', 'layout', 'subject', 'options'].includes(key)) check.fail(key, 'is not a known field');
  const name = check.string(body, 'name', { max: 200 });
  const layout = check.oneOf(body, 'layout', WIDGET_LAYOUTS);
  const subject = nested(check, 'subject', (c) => parseSubject(c, body.subject));
  const options = nested(check, 'options', (c) => parseOptions(c, body.options));
  check.done();
  return {
    ...(name && { name }),
    ...(layout && { layout }),
    ...(subject && { subject }),
    ...(options && { options: exclusiveProductPatch(options)! }),
  };
}
