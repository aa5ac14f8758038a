/**
 * Reply templates (CONTRACT §15, "Templates"): per organization (at most
 * MAX_REPLY_TEMPLATES), each with a name, a language, the ratings it suits and
 * a text with `{author}`, `{business}` and `{product}`. Owner and Admin write
 * them (audited), everyone in the organization reads them. Replying to a
 * review proposes the template that suits its rating and language, filled in;
 * nothing is posted without a person.
 */
import { randomUUID } from 'node:crypto';
import { audit } from '../dashboard/audit.ts';
import { ApiError, badRequest, notFound } from '../errors.ts';
import type { Role } from '../store/people-types.ts';
import { MAX_REPLY_TEMPLATES, type ReplyActor, type ReplyTemplate } from '../store/reply-types.ts';
import type { Review, Store } from '../store/types.ts';

export const PLACEHOLDERS = ['author', 'business', 'product'] as const;
const NAME_MAX = 80;
/** The largest any platform takes (Google: 4,096 bytes of UTF-8); the composer counts the filled text again. */
export const TEMPLATE_MAX_BYTES = 4096;

/** A template as the dashboard shows it. */
export interface TemplateView {
  id: string;
  name: string;
  language: string;
  ratings: number[];
  text: string;
  updatedAt: string;
}

export const templateView = (t: ReplyTemplate): TemplateView => ({ id: t.id, name: t.name, language: t.language, ratings: t.ratings, text: t.text, updatedAt: t.updatedAt });

export interface TemplateCaller {
  actor: ReplyActor;
  role: Role | 'operator';
}

const writer = (c: TemplateCaller): boolean => c.role === 'operator' || c.role === 'owner' || c.role === 'admin';
const field = (parameter: string, message: string): ApiError => badRequest(`${message.charAt(0).toUpperCase()}${message.slice(1)}.`, [{ parameter, message }]);

/** The template's fields checked: each problem a 400 naming the field, in words. */
export function parseTemplate(body: unknown): Pick<ReplyTemplate, 'name' | 'language' | 'ratings' | 'text'> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('Send the template as a JSON object with name, language, ratings and text.');
  const b = body as Record<string, unknown>;
  const name = typeof b.name === 'string' ? b.name.trim() : '';
  if (name === '') throw field('name', 'the template needs a name');
  if (name.length > NAME_MAX) throw field('name', `the name is ${name.length} characters long; at most ${NAME_MAX}`);
  const language = typeof b.language === 'string' ? b.language.trim().toLowerCase() : '';
  if (!/^[a-z]{2}$/.test(language)) throw field('language', 'the language must be a two-letter code such as en, de or fr');
  if (!Array.isArray(b.ratings) || b.ratings.length === 0) throw field('ratings', 'choose at least one rating (1 to 5 stars) the template suits');
  const ratings = [...new Set(b.ratings as unknown[])];
  if (!ratings.every((r) => typeof r === 'number' && Number.isInteger(r) && r >= 1 && r <= 5)) throw field('ratings', 'each rating must be a whole number of stars from 1 to 5');
  const text = typeof b.text === 'string' ? b.text : '';
  if (text.trim() === '') throw field('text', 'the template\'s text is empty');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > TEMPLATE_MAX_BYTES) throw field('text', `the text is ${bytes.toLocaleString('en-US')} bytes of UTF-8; at most ${TEMPLATE_MAX_BYTES.toLocaleString('en-US')} (Google's limit)`);
  const unknown = [...text.matchAll(/\{([^{}\s]{1,40})\}/g)].map((m) => m[1]!).find((p) => !(PLACEHOLDERS as readonly string[]).includes(p));
  if (unknown !== undefined) throw field('text', `{${unknown}} is not a placeholder: use {author}, {business} or {product}`);
  return { name, language, ratings: (ratings as number[]).sort((x, y) => x - y), text };
}

/** The template's text with its placeholders replaced (`{product}`: the review's product, else the business). */
export function fillTemplate(text: string, values: { author: string; business: string; product: string | null }): string {
  return text.replace(/\{(author|business|product)\}/g, (_, p: string) => (p === 'author' ? values.author : p === 'business' ? values.business : (values.product ?? values.business)));
}

/** The review's language as templates name it: its first two letters, lower case. */
const languageOf = (review: Pick<Review, 'language'>): string => (review.language ?? '').slice(0, 2).toLowerCase();

/**
 * The template to propose for a review: its language and rating both suit it;
 * of several, the one suiting the fewest ratings (the most particular), then
 * by name. Null when none suits (a review without stars gets none).
 */
export function proposeTemplate<T extends Pick<ReplyTemplate, 'name' | 'language' | 'ratings'>>(templates: readonly T[], review: Pick<Review, 'language' | 'rating'>): T | null {
  if (review.rating === null) return null;
  const language = languageOf(review);
  const suits = templates.filter((t) => t.language === language && t.ratings.includes(review.rating!));
  suits.sort((a, b) => a.ratings.length - b.ratings.length || a.name.localeCompare(b.name));
  return suits[0] ?? null;
}

export class ReplyTemplates {
  constructor(private readonly deps: { store: Store; now?: () => Date; max?: number }) {}

  private now(): string {
    return (this.deps.now?.() ?? new Date()).toISOString();
  }

  list(orgId: string): Promise<ReplyTemplate[]> {
    return this.deps.store.replies.templates(orgId);
  }

  async create(caller: TemplateCaller, orgId: string, body: unknown): Promise<ReplyTemplate> {
    if (!writer(caller)) throw new ApiError(403, 'forbidden', 'Only an Owner or Admin can add reply templates; a Member uses them.');
    const fields = parseTemplate(body);
    const at = this.now();
    const t: ReplyTemplate = { orgId, id: `tpl_${randomUUID().replace(/-/g, '').slice(0, 20)}`, ...fields, createdAt: at, updatedAt: at };
    const max = this.deps.max ?? MAX_REPLY_TEMPLATES;
    if (!(await this.deps.store.replies.createTemplate(t, max))) {
      throw new ApiError(409, 'limit_reached', `An organization may keep at most ${max} reply templates: remove one before adding another.`);
    }
    await this.audit(caller, orgId, 'reply.template_created', t);
    return t;
  }

  async update(caller: TemplateCaller, orgId: string, id: string, body: unknown): Promise<ReplyTemplate> {
    if (!writer(caller)) throw new ApiError(403, 'forbidden', 'Only an Owner or Admin can change reply templates.');
    const before = await this.deps.store.replies.getTemplate(orgId, id);
    if (!before) throw notFound('Template');
    const t: ReplyTemplate = { ...before, ...parseTemplate(body), updatedAt: this.now() };
    if (!(await this.deps.store.replies.putTemplate(t))) throw notFound('Template');
    await this.audit(caller, orgId, 'reply.template_changed', t);
    return t;
  }

  async remove(caller: TemplateCaller, orgId: string, id: string): Promise<void> {
    if (!writer(caller)) throw new ApiError(403, 'forbidden', 'Only an Owner or Admin can remove reply templates.');
    const before = await this.deps.store.replies.getTemplate(orgId, id);
    if (!before || !(await this.deps.store.replies.deleteTemplate(orgId, id))) throw notFound('Template');
    await this.audit(caller, orgId, 'reply.template_removed', before);
  }

  /** Every template filled in for `review`, and the one proposed for it (CONTRACT §15). */
  async forReview(review: Review, business: string): Promise<{ templates: TemplateView[]; proposal: TemplateView | null }> {
    const all = await this.list(review.orgId);
    if (all.length === 0) return { templates: [], proposal: null };
    const product = review.productId ? ((await this.deps.store.products.get(review.orgId, review.productId))?.name ?? null) : null;
    const templates = all.map((t) => ({ ...templateView(t), text: fillTemplate(t.text, { author: review.authorName, business, product }) }));
    return { templates, proposal: proposeTemplate(templates, review) };
  }

  private async audit(caller: TemplateCaller, orgId: string, action: 'reply.template_created' | 'reply.template_changed' | 'reply.template_removed', t: ReplyTemplate): Promise<void> {
    const actor = caller.actor.userId === null ? { userId: null, email: caller.actor.email } : { id: caller.actor.userId, email: caller.actor.email };
    await audit(this.deps.store, orgId, actor, action, { id: t.id, label: `Reply template “${t.name}”` }, { words: `${t.language.toUpperCase()}, ${t.ratings.join(', ')} stars` });
  }
}
