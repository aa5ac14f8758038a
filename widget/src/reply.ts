/**
 * The organization's replies (CONTRACT §15) as the framed layouts draw them:
 * "Response from {organization}" on a disclosure button, the reply's text,
 * and the whole reply, signed, in the "Read more" dialog. Text only, never
 * markup.
 *
 * In the browser this is a chunk of its own (with every language's "Response
 * from"): the framed chunk imports it (entries/framed.tsx, a relative URL,
 * i.e. from the loader's own origin like every other chunk) only when the
 * data carries a reply, so a page without replies, and every badge, loads
 * none of it. The server renders it with the rest (widget.tsx).
 *
 * It makes its elements with the `h` it is given (no JSX here): the browser's
 * (jsx-inject.ts) by the framed chunk, Preact's by the server. Importing
 * either would make esbuild split the module the chunks share into one more
 * chunk that every framed page would load.
 */
import type { ComponentChild, ComponentChildren } from 'preact';
import type { Formatter } from './format.ts';
import { RESPONSE_FROM } from './i18n/replies.ts';
import type { Prepared } from './mount.ts';
import type { PublicReview } from './public-data.ts';

/** The reply part of styles.ts, inlined by widget/build.ts (the browser's chunk only). */
declare const __RV_CSS_REPLY__: string;

let sheet: CSSStyleSheet | undefined;

/**
 * The browser's framed chunk calls this, once the data is checked and before
 * it renders: the replies' rules (styles.ts CSS_PARTS.reply, one sheet per
 * page) go into the widget's shadow root, in the same task that took the
 * server-rendered markup's own <style> out, and the replies onto its
 * formatter. `redraw` renders the widget again.
 */
export function attach(h: H, { root, data, f }: Prepared, redraw: () => void): void {
  if (!data.organization) return;
  if (!sheet) (sheet = new CSSStyleSheet()).replaceSync(__RV_CSS_REPLY__);
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  f.replies = replies(h, data.organization, f, redraw);
}

/** An element as both `h`s make it: its props hold its children (and, in the browser, its ref). */
interface El {
  props: Record<string, unknown> & { children?: unknown };
}

/** What review-card.tsx and review-dialog.tsx call (`f.replies`), for one widget (its organization and language). */
export interface Replies {
  /**
   * A card or list row (review-card.tsx's <article>: its head, the stars row
   * of a card or `false`, the text, the foot or a row's stars row) with the
   * review's reply added: the "Response from {o}" disclosure button in the
   * stars row (one made for it when the card has no stars), and the reply
   * after the text, which it replaces while unfolded. A review without a
   * reply is returned as it is.
   */
  card(article: ComponentChild, review: PublicReview, row: boolean | undefined): ComponentChild;
  /** The "Read more" dialog's whole reply, signed; nothing for a review without one. */
  block(review: PublicReview): ComponentChild;
}

/** "Response from {o}" in the catalog's language (English for a language without one), `org` as text. */
export const responseFrom = (org: string, f: Formatter): string => (RESPONSE_FROM[f.lang] ?? RESPONSE_FROM.en!).replace('{o}', () => org);

/** An element factory: jsx-inject.ts's `h` in the browser, Preact's on the server. */
export type H = (type: string, props: Record<string, unknown> | null, ...children: ComponentChildren[]) => ComponentChild;

/**
 * The replies for a widget of `org` speaking `f`'s language, made with `h`.
 * Which replies are unfolded is kept here, by review id (a review paged out
 * and back keeps its state, and no other review takes it over); `redraw`
 * renders the widget again after a change (the server never calls it).
 */
export function replies(h: H, org: string, f: Formatter, redraw: () => void): Replies {
  const by = responseFrom(org, f);
  const open = new Set<string>();
  return {
    card(article, review, row) {
      const { reply } = review;
      if (!reply) return article;
      const unfolded = open.has(review.id);
      const [head, stars, text, last] = (article as El).props.children as [ComponentChild, El | false, El, El];
      const toggle = h('button', { type: 'button', class: 'rb', 'aria-expanded': unfolded, onClick: () => (open.delete(review.id) || open.add(review.id), redraw()) }, by);
      const withToggle = (el: El) => h('div', el.props, ...[el.props.children as ComponentChildren].flat(), toggle);
      return h(
        'article',
        (article as El).props,
        head,
        row ? stars : stars ? withToggle(stars) : h('div', { class: 'stars-row' }, toggle),
        h('p', { ...text.props, hidden: unfolded }, text.props.children as ComponentChildren),
        h('p', { class: 'text reply', ref: text.props.ref, dir: 'auto', hidden: !unfolded }, reply.text),
        row ? withToggle(last) : last,
      );
    },
    block: ({ reply }) => reply && h('p', { class: 'full reply', dir: 'auto' }, h('b', null, by), '\n' + reply.text),
  };
}
