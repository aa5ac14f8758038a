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
import type { Messages } from '../messages.ts';
import { addJsonLd, prepare } from '../mount.ts';
import { Paged } from '../paged.tsx';
import { sheet } from '../sheet.ts';

/** The framed part of styles.ts, inlined by widget/build.ts. */
declare const __RV_CSS_FRAMED__: string;

const release = (root: ShadowRoot): void => render(null, root);

export function mount(container: HTMLElement, raw: unknown, messages: Messages, now = Date.now()): void {
  const p = prepare(container, raw, messages, [sheet(__RV_CSS_FRAMED__)], release, now);
  const Body = p.data.layout === 'carousel' ? Carousel : Paged;
  render(<Framed data={p.data} f={p.f} width={container.clientWidth} label={p.label} Body={Body} />, p.root);
  addJsonLd(p);
}
