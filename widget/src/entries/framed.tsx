/**
 * The chunk of the framed layouts (carousel, grid, list), drawn with Preact:
 * hydrating server-rendered markup in place (same nodes, no repaint) or
 * rendering. One chunk for the three: they share nearly all their code, and
 * a page showing two of them must not load it twice.
 */
import { Fragment, createElement, hydrate, render } from 'preact';
import { Carousel } from '../carousel.tsx';
import { Framed } from '../framed.tsx';
import { usePreact } from '../jsx-inject.ts';
import type { Messages } from '../messages.ts';
import { addJsonLd, prepare } from '../mount.ts';
import { Paged } from '../paged.tsx';
import { sheet } from '../sheet.ts';

/** The framed part of styles.ts, inlined by widget/build.ts. */
declare const __RV_CSS_FRAMED__: string;

// Before anything renders: from now on JSX makes Preact's own elements (jsx-inject.ts).
usePreact(createElement as never, Fragment);

const release = (root: ShadowRoot): void => render(null, root);

export function mount(container: HTMLElement, raw: unknown, messages: Messages, now = Date.now()): void {
  const p = prepare(container, raw, messages, [sheet(__RV_CSS_FRAMED__)], release, now);
  const Body = p.data.layout === 'carousel' ? Carousel : Paged;
  const widget = <Framed data={p.data} f={p.f} width={container.clientWidth} label={p.label} Body={Body} />;
  if (p.hydrating) hydrate(widget, p.root);
  else render(widget, p.root);
  addJsonLd(p);
}
