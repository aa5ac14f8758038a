/**
 * Mounting a framed layout (carousel, grid, list) with Preact: hydrating the
 * server-rendered markup in place (same nodes, no repaint) or rendering.
 * Shared by the carousel's and the paged layouts' chunks (entries/).
 */
import { Fragment, createElement, hydrate, render, type ComponentType } from 'preact';
import { Framed, type BodyProps } from './framed.tsx';
import { usePreact } from './jsx-inject.ts';
import type { Messages } from './messages.ts';
import { addJsonLd, prepare, type Mount } from './mount.ts';
import { sheet } from './sheet.ts';

/** The framed part of styles.ts, inlined by widget/build.ts. */
declare const __RV_CSS_FRAMED__: string;

// Before anything renders: from now on JSX makes Preact's own elements (jsx-inject.ts).
usePreact(createElement as never, Fragment);

const release = (root: ShadowRoot): void => render(null, root);

/** The `mount` of a layout chunk: its body component and its own part of the stylesheet. */
export function framedMount(Body: ComponentType<BodyProps>, css: string): Mount {
  return function mount(container: HTMLElement, raw: unknown, messages: Messages | null = null, now = Date.now()): void {
    const p = prepare(container, raw, messages, [sheet(__RV_CSS_FRAMED__), sheet(css)], release, now);
    const widget = <Framed data={p.data} f={p.f} width={container.clientWidth} label={p.label} Body={Body} />;
    if (p.hydrating) hydrate(widget, p.root);
    else render(widget, p.root);
    addJsonLd(p);
  };
}
