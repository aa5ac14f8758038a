/**
 * The badge's chunk: the badge drawn without Preact's renderer
 * (dom-render.ts), so a badge-only page stays under its budget.
 */
import { Badge } from '../badge.tsx';
import { appendTree } from '../dom-render.ts';
import type { Messages } from '../messages.ts';
import { addJsonLd, prepare } from '../mount.ts';
import { sheet } from '../sheet.ts';

/** The badge part of styles.ts, inlined by widget/build.ts. */
declare const __RV_CSS_BADGE__: string;

const release = (root: ShadowRoot): void => root.replaceChildren();

export function mount(container: HTMLElement, raw: unknown, messages: Messages, now = Date.now()): void {
  const p = prepare(container, raw, messages, [sheet(__RV_CSS_BADGE__)], release, now);
  // Server-rendered or not, the badge is drawn afresh: the same nodes, nothing to keep alive.
  const fragment = document.createDocumentFragment();
  appendTree(fragment, <Badge data={p.data} f={p.f} label={p.label} />);
  p.root.replaceChildren(fragment);
  addJsonLd(p);
}
