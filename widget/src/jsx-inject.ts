/**
 * Build-only: the chunks compile JSX to classic `h(type, props, ...children)`
 * calls (smaller than the automatic runtime's `children:` objects), and
 * esbuild injects these two bindings wherever JSX appears (widget/build.ts).
 *
 * Until a framed layout's chunk loads, `h` makes plain `{ type, props }`
 * elements, which is all the badge's drawing (dom-render.ts) reads: so the
 * code every layout shares does not import Preact, and a badge-only page
 * never downloads it. framed-mount.tsx hands over Preact's own `h` and
 * `Fragment` when it is evaluated, before Preact renders anything, so Preact
 * only ever sees its own elements (dom-render.ts reads those as well). These
 * are live ES module bindings: every chunk sees the switch.
 */
import type { ComponentChildren } from 'preact';

type Factory = (type: unknown, props: Record<string, unknown> | null, ...children: ComponentChildren[]) => unknown;

export let h: Factory = (type, props, ...children) => ({ type, props: { ...props, children: children.length > 1 ? children : children[0] } });
export let Fragment: unknown = (props: { children?: ComponentChildren }) => props.children;

/** Called once by framed-mount.tsx with Preact's createElement and Fragment. */
export function usePreact(createElement: Factory, fragment: unknown): void {
  h = createElement;
  Fragment = fragment;
}
