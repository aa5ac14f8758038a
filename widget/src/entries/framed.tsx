/**
 * The chunk of the framed layouts (carousel, grid, list), drawn by
 * dom-patch.ts (widget/build.ts aliases `preact` to it here): over
 * server-rendered markup it keeps the nodes there (hydration, no repaint),
 * otherwise it renders. One chunk for the three: they share nearly all
 * their code, and a page showing two of them must not load it twice.
 */
import { Carousel } from '../carousel.tsx';
import { render } from '../dom-patch.ts';
import { Framed } from '../framed.tsx';
import { h } from '../jsx-inject.ts';
import type { Messages } from '../messages.ts';
import type { PublicWidgetData } from '../public-data.ts';
import { addJsonLd, prepare } from '../mount.ts';
import { Paged } from '../paged.tsx';
import { warmUp } from '../review-format.ts';
import { sheet } from '../sheet.ts';

/** The framed part of styles.ts, inlined by widget/build.ts. */
declare const __RV_CSS_FRAMED__: string;

const release = (root: ShadowRoot): void => render(null, root);

/**
 * In several tasks, each short enough not to block the page on a slow
 * phone: the chunk's evaluation with the shadow root and its stylesheets;
 * the Intl formatters, one task each (the page's first one loads the
 * browser's locale data: the most costly step); the render; and, for a
 * carousel rendered afresh, its off-screen slides (carousel.tsx). The
 * container keeps its reserved height throughout, and server-rendered
 * markup stays as it is until the render takes it over.
 *
 * Data with a reply to show also needs the replies' chunk (reply.ts, with
 * its stylesheet): imported first, by a relative URL, so from the same
 * origin as this chunk, and before server-rendered markup loses its own
 * <style>. Its sign is the organization's name, which the public data
 * carries only then (the widget shows replies and a review has one); data
 * without it never loads the chunk.
 */
export async function mount(container: HTMLElement, raw: unknown, messages: Messages, now = Date.now()): Promise<void> {
  const parts = (raw as PublicWidgetData | null)?.organization && (await import('../reply.ts'));
  const p = prepare(container, raw, messages, [sheet(__RV_CSS_FRAMED__)], release, now);
  const Body = p.data.layout === 'carousel' ? Carousel : Paged;
  const draw = (): void => render(<Framed data={p.data} f={p.f} width={container.clientWidth} label={p.label} Body={Body} lazy={!p.hydrating} />, p.root);
  if (parts) parts.attach(h, p, draw);
  await warmUp(p.f);
  draw();
  addJsonLd(p);
}
