/** A widget with a patch applied: top-level fields replaced, subject and options merged field by field. */
import type { Widget, WidgetPatch } from './types.ts';

export function applyWidgetPatch(widget: Widget, patch: WidgetPatch, now: Date): Widget {
  const { subject, options, ...top } = structuredClone(patch);
  return {
    ...widget,
    ...top,
    subject: { ...widget.subject, ...subject },
    options: { ...widget.options, ...options },
    updatedAt: now.toISOString(),
  };
}
