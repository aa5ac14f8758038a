/**
 * The top of every page: its heading (focused on arrival, so screen readers announce it) and the tab title.
 * Focused in the same task as the page's first paint (a layout effect): an effect after paint could move
 * focus away from a control a quick person (or a test) had already reached on the new page.
 */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

export function PageHeader(props: { title: string; lead?: ComponentChildren; actions?: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => {
    document.title = `${props.title} · Review Proof`;
    ref.current?.focus({ preventScroll: true });
  }, [props.title]);
  return (
    <div class="page-header">
      <div>
        <h1 ref={ref} tabIndex={-1}>
          {props.title}
        </h1>
        {props.lead && <p class="lead">{props.lead}</p>}
      </div>
      {props.actions && <div class="page-actions">{props.actions}</div>}
    </div>
  );
}

export function Notice(props: { tone?: 'info' | 'warning' | 'error' | 'success'; children: ComponentChildren; role?: 'alert' | 'status' }) {
  return (
    <div class={`notice notice-${props.tone ?? 'info'}`} role={props.role}>
      {props.children}
    </div>
  );
}

export function Loading(props: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {props.what}…
    </p>
  );
}

/** A wide table scrolls sideways inside its own focusable region on a narrow screen. */
export function TableWrap(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </div>
  );
}
