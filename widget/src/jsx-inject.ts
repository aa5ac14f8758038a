/**
 * Build-only: the chunks compile JSX to classic `h(type, props, ...children)`
 * calls (smaller than the automatic runtime's `children:` objects), and
 * esbuild injects these two bindings wherever JSX appears (widget/build.ts).
 * They make plain `{ type, props }` elements (`key` stays in `props`), all
 * that the browser's renderers read: dom-render.ts (the badge) and
 * dom-patch.ts (the framed layouts). Preact is never loaded in the browser;
 * the server renders the same components with Preact's own JSX runtime.
 */
import type { ComponentChildren } from 'preact';

export const h = (type: unknown, props: Record<string, unknown> | null, ...children: ComponentChildren[]) => ({
  type,
  props: { ...props, children: children.length > 1 ? children : children[0] },
});
export const Fragment = (props: { children?: ComponentChildren }) => props.children;
