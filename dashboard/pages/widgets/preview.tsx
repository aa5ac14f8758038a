/**
 * The live preview IS the widget: the service's own /widget/loader.js, loaded
 * once into the dashboard (script-src 'self' allows it), renders the public
 * data of the unsaved options through `ReviewProof.render` with the same
 * bundle and catalogs a snippet loads. Changes are coalesced (a short pause
 * after typing), and an answer older than the one on screen is dropped, so a
 * slow request never overwrites a newer preview. A change of theme, accent
 * or dates alone is rendered at once from the data on screen (the server
 * only copies those into the data), and confirmed by the server's answer.
 *
 * Latency: every render is measured from the input event that caused it to
 * the widget's DOM being updated, as a performance measure named
 * `rp:preview` (DevTools' Performance panel and the e2e test read it).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, DashboardError, type WidgetPreview } from '../../api.ts';
import type { Namespace } from '../../../widget/src/loader.ts';

/** Pause after the last key before asking, so typing stays smooth; a click, a choice or a checkbox asks at once. */
export const PREVIEW_DEBOUNCE_MS = 60;
export const PREVIEW_MEASURE = 'rp:preview';

/** When the person last changed something (performance.now()): where a preview's latency starts. */
let lastInputAt = 0;
let lastInputTyped = false;
export function markInput(typed: boolean): void {
  lastInputAt = performance.now();
  lastInputTyped = typed;
}

let loader: Promise<Namespace> | undefined;

/** The widget loader, once per page, from this origin (the path a snippet uses). */
function widgetLoader(): Promise<Namespace> {
  loader ??= new Promise<Namespace>((resolve, reject) => {
    const ready = () => (window as unknown as { ReviewProof?: Namespace }).ReviewProof;
    if (ready()?.render) return resolve(ready()!);
    const tag = document.createElement('script');
    tag.src = '/widget/loader.js';
    tag.async = true;
    tag.onload = () => (ready()?.render ? resolve(ready()!) : reject(new Error('the widget loader has no render()')));
    tag.onerror = () => reject(new Error('the widget loader could not be loaded'));
    document.head.appendChild(tag);
  });
  loader.catch(() => (loader = undefined));
  return loader;
}

export interface PreviewState {
  /** Field → problem in the server's words ("must be an integer from 1 to 50"), from its validation of the unsaved options. */
  fields: Record<string, string>;
  findings: WidgetPreview['findings'] | null;
  error: string;
}

/**
 * Renders `body` (the draft as the API takes it) into the preview box as it
 * changes, and reports validation problems and the SEO findings.
 */
interface Shown {
  /** The request body without the display options (see `split`). */
  rest: string;
  data: { options: Record<string, unknown> } & Record<string, unknown>;
}

/**
 * The display options the server copies into the public data as they are
 * (api/widgets/public-data.ts: theme, accentColor lower-cased, showDates),
 * valid ones only, and the rest of the body. A change of these alone is
 * rendered at once from the data on screen, then confirmed by the server.
 */
function split(body: unknown): { rest: string; display: Record<string, unknown> | null } {
  const b = body as { options: { theme: string; accentColor: string; showDates: boolean } };
  const { theme, accentColor, showDates, ...options } = b.options;
  const valid = ['light', 'dark', 'auto'].includes(theme) && /^#[0-9a-fA-F]{6}$/.test(accentColor);
  return { rest: JSON.stringify({ ...b, options }), display: valid ? { theme, accentColor: accentColor.toLowerCase(), showDates } : null };
}

/**
 * Renders `body` (the draft as the API takes it) into the preview box as it
 * changes, and reports validation problems and the SEO findings.
 */
export function Preview(props: {
  body: unknown;
  /** Problems the builder found itself (validate.ts): while there are any, nothing is sent and the last valid preview stays. */
  problems: Record<string, string>;
  onState: (state: PreviewState) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const sent = useRef(0);
  const shown = useRef(0);
  const last = useRef<Shown | null>(null);
  const rendered = useRef('');
  const [pending, setPending] = useState(false);
  const [stale, setStale] = useState(false);
  const known = Object.keys(props.problems).length > 0;
  const key = known ? `invalid ${JSON.stringify(props.problems)}` : JSON.stringify(props.body);
  const findings = useRef<WidgetPreview['findings'] | null>(null);

  const queue = useRef<Promise<void>>(Promise.resolve());

  /**
   * Mounts data unless it is what the preview already shows; measures input → DOM.
   * One render at a time, in the order asked: a render waiting for another
   * language's catalog must not land after a newer one.
   */
  const show = (ns: Namespace, data: Shown['data'], inputAt: number): Promise<void> =>
    (queue.current = queue.current
      .catch(() => undefined)
      .then(async () => {
        const json = JSON.stringify(data);
        if (json === rendered.current) return;
        rendered.current = json;
        // The dashboard is not a page to mark up: the previous preview's JSON-LD goes with it.
        for (const old of Array.from(document.head.querySelectorAll('script[data-rv-jsonld]'))) old.remove();
        await ns.render(box.current!, data);
        if (inputAt > 0) performance.measure(PREVIEW_MEASURE, { start: inputAt, end: performance.now() });
      }));

  useEffect(() => {
    if (known) {
      // Known to be refused: no request (no failed request in the console); the form shows the problems.
      sent.current++;
      shown.current = sent.current;
      setPending(false);
      setStale(true);
      props.onState({ fields: {}, findings: findings.current, error: '' });
      return;
    }
    const inputAt = lastInputAt;
    const { rest, display } = split(props.body);
    if (display && last.current?.rest === rest) {
      // Only how it looks changed: at once, from the data on screen; answers to requests sent before are older than this.
      shown.current = sent.current;
      const data = { ...last.current.data, options: { ...last.current.data.options, ...display } };
      void widgetLoader().then((ns) => show(ns, data, inputAt));
    }
    const timer = setTimeout(async () => {
      const seq = ++sent.current;
      setPending(true);
      try {
        const [preview, ns] = await Promise.all([call<WidgetPreview>('POST', '/widgets/preview', props.body), widgetLoader()]);
        if (seq <= shown.current) return; // a newer answer is already on screen
        shown.current = seq;
        last.current = { rest, data: preview.data as Shown['data'] };
        await show(ns, last.current.data, inputAt);
        box.current!.dataset.previewSeq = String(seq);
        setStale(false);
        findings.current = preview.findings;
        props.onState({ fields: {}, findings: preview.findings, error: '' });
      } catch (err) {
        if (seq <= shown.current) return;
        shown.current = seq;
        setStale(true);
        const fields = err instanceof DashboardError && err.status === 400 ? err.details : {};
        const error = Object.keys(fields).length > 0 ? '' : err instanceof DashboardError ? err.message : 'The preview could not be shown.';
        props.onState({ fields, findings: null, error });
      } finally {
        if (seq === sent.current) setPending(false);
      }
    }, lastInputTyped ? PREVIEW_DEBOUNCE_MS : 0);
    return () => clearTimeout(timer);
  }, [key]);

  return (
    <section class="preview card" aria-labelledby="preview-title">
      <div class="preview-head">
        <h2 id="preview-title">Preview</h2>
        <span class="hint" role="status">
          {pending ? 'Updating…' : stale ? 'Showing the last valid settings: fix the fields marked in the form.' : 'Live: the widget as your visitors will see it.'}
        </span>
      </div>
      <div class="preview-stage">
        <div ref={box} class="rv-widget" id="widget-preview" />
      </div>
    </section>
  );
}
