/**
 * Draws a Preact element tree as DOM nodes without Preact's renderer, for the
 * badge: it has no state and no events, so a badge-only page needs a few
 * hundred bytes here instead of Preact's 4.4 KiB. The server renders the same
 * components with preact-render-to-string. It knows what those components
 * use: function components (Fragment is one), HTML and SVG elements,
 * attributes, `class`, and style objects whose keys are CSS property names
 * (`height`, `--s`). Text is only ever a text node.
 */
import type { ComponentChildren, FunctionComponent, VNode } from 'preact';

const SVG_NS = 'http://www.w3.org/2000/svg';

export function appendTree(parent: ParentNode, node: ComponentChildren, svg = false): void {
  if (node == null || typeof node === 'boolean') return;
  if (typeof node !== 'object') return parent.append(String(node));
  if (Array.isArray(node)) return node.forEach((child) => appendTree(parent, child as ComponentChildren, svg));
  const { type, props } = node as VNode<Record<string, unknown>>;
  if (typeof type === 'function') return appendTree(parent, (type as FunctionComponent)(props), svg);
  const inSvg = svg || type === 'svg';
  const el = inSvg ? document.createElementNS(SVG_NS, type) : document.createElement(type);
  for (const name in props) {
    const value = props[name];
    if (name === 'children') appendTree(el, value as ComponentChildren, inSvg);
    else if (name === 'style') for (const key in value as object) (el as HTMLElement).style.setProperty(key, (value as Record<string, string>)[key]!);
    else if (value != null && value !== false) el.setAttribute(name, value === true ? '' : String(value));
  }
  parent.append(el);
}
