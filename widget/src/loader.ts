/**
 * The loader a site pastes (built to widget/dist/loader.js, one IIFE, no
 * imports left after bundling). It finds every widget container, reserves its
 * height, and for each one fetches the public data while the Preact bundle
 * loads: the bundle once per page, the data once per widget id. It sets no
 * cookie, touches no storage, and creates one global: window.ReviewProof.
 *
 * Everything is loaded from the origin of the loader's own <script src>, and
 * only from there: page markup (which may hold user content with data-
 * attributes) never chooses where script or data comes from.
 */
import { ASSET_PATH, CONTAINER_ATTR, DATA_ATTR, DATA_PATH, HEIGHT_ATTR, LOADER_FILE, LOG_PREFIX, NAMESPACE } from './protocol.ts';

/** File name of the hashed bundle, defined by widget/build.ts. */
declare const __RV_BUNDLE__: string;
/** Catalog file name with `*` for the language (hashed), defined by widget/build.ts. */
declare const __RV_CATALOG__: string;
/** The catalogs' languages, space separated, defined by widget/build.ts. */
declare const __RV_LANGS__: string;

/** window.ReviewProof: what the loader and the bundle share. */
export interface Namespace {
  /** Render containers added since the last scan (single-page apps call this). */
  scan(): void;
  /**
   * Render `data` (the shape of GET /public/v1/widgets/{id}) into `container`
   * with the same bundle and catalogs as every snippet; again into the same
   * container re-renders in place. The dashboard's live preview uses it.
   */
  render(container: HTMLElement, data: unknown): Promise<void>;
  /** Set by the bundle when it has loaded; `messages` is the language's catalog (null: English). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalog's shape is the bundle's business
  mount?: (container: HTMLElement, data: unknown, messages: any) => void;
}

/**
 * The origin that served this very script: document.currentScript, read
 * while the script first runs (it is null afterwards and in modules). When a
 * wrapper runs the file without it, the <script> elements whose src is the
 * loader's exact path are the candidates, and they must all agree: two
 * origins (e.g. a copied tag in user content) mean nothing is trusted.
 */
function ownOrigin(): string {
  // An element named "currentScript" or "scripts" in the page (<img
  // name="currentScript" src="https://evil…">) shadows document's own
  // properties (DOM clobbering): the element is checked, and the scan goes
  // through Document.prototype.
  const self: unknown = document.currentScript;
  if (self instanceof HTMLScriptElement && self.src) return new URL(self.src).origin;
  const origins: string[] = [];
  const scripts = Document.prototype.getElementsByTagName.call(document, 'script');
  for (let i = 0; i < scripts.length; i++) {
    const script = scripts[i];
    const src = script instanceof HTMLScriptElement ? script.src : '';
    if (!src) continue;
    const url = new URL(src);
    if (url.pathname === ASSET_PATH + LOADER_FILE && /^https?:$/.test(url.protocol) && origins.indexOf(url.origin) < 0) origins.push(url.origin);
  }
  return origins.length === 1 ? origins[0]! : '';
}

(function loader() {
  const w = window as unknown as Record<string, Namespace | undefined>;
  const running = w[NAMESPACE];
  // Pasted twice, or the tag-manager script and the snippet: one loader rules.
  if (running && typeof running.scan === 'function') {
    running.scan();
    return;
  }
  const warn = (message: string, detail?: unknown): void => console.warn(LOG_PREFIX, message, detail ?? '');
  const origin = ownOrigin();
  if (!origin) return warn('cannot tell which origin served the loader; nothing is loaded');
  const done = new WeakSet<Element>();
  const requests = new Map<string, Promise<unknown>>();
  const catalogs = new Map<string, Promise<unknown>>();
  // The language rule of mount.tsx: the widget's locale, else <html lang>, else the browser's.
  const pageLang = document.documentElement.lang || navigator.language || '';
  let bundle: Promise<void> | undefined;
  const ns: Namespace = { scan, render: show };
  w[NAMESPACE] = ns;

  function loadBundle(): Promise<void> {
    bundle ??= new Promise<void>((resolve, reject) => {
      const tag = document.createElement('script');
      tag.async = true;
      tag.src = origin + ASSET_PATH + __RV_BUNDLE__;
      tag.onload = tag.onerror = () => (ns.mount ? resolve() : reject(new Error('bundle failed to load')));
      (document.head || document.documentElement).appendChild(tag);
    });
    return bundle;
  }

  function loadData(id: string): Promise<unknown> {
    let request = requests.get(id);
    if (!request) {
      request = fetch(origin + DATA_PATH + encodeURIComponent(id), { credentials: 'omit' }).then((res) => {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json().then((body: { data?: unknown }) => body.data);
      });
      // A failed request may succeed on a later scan.
      request.catch(() => requests.delete(id));
      requests.set(id, request);
    }
    return request;
  }

  /** The catalog of a locale's language, once per page; null for English or a language without one. */
  function loadCatalog(locale: string): Promise<unknown> {
    const lang = locale.split('-')[0]!.toLowerCase();
    if (!lang || (' ' + __RV_LANGS__ + ' ').indexOf(' ' + lang + ' ') < 0) return Promise.resolve(null);
    let request = catalogs.get(lang);
    if (!request) {
      request = fetch(origin + ASSET_PATH + __RV_CATALOG__.replace('*', lang), { credentials: 'omit' })
        .then((res) => (res.ok ? res.json() : null))
        .catch(() => null);
      catalogs.set(lang, request);
    }
    return request;
  }

  function start(el: HTMLElement): void {
    done.add(el);
    const id = el.getAttribute(CONTAINER_ATTR) || '';
    const height = el.getAttribute(HEIGHT_ATTR) || '';
    // Through CSSOM: a strict CSP drops the snippet's style attribute but not this.
    if (/^\d{1,5}$/.test(height)) el.style.minHeight = height + 'px';
    if (!id) return warn('container without widget id', el);
    // A server-rendered widget carries its data in its shadow root: no second fetch.
    const embedded = el.shadowRoot && el.shadowRoot.querySelector('script[' + DATA_ATTR + ']');
    const data = embedded ? Promise.resolve().then(() => JSON.parse(embedded.textContent || '') as unknown) : loadData(id);
    show(el, data).catch((error: unknown) => {
      el.style.minHeight = '';
      warn('widget ' + id + ' could not be shown:', error);
    });
  }

  /** Mounts data (or its promise) once the bundle and the catalog of its language are here. */
  function show(el: HTMLElement, data: unknown): Promise<void> {
    // All requests start now and run in parallel; a widget with its own locale may need one more catalog.
    loadCatalog(pageLang);
    return Promise.all([data, loadBundle()]).then(([data]) =>
      loadCatalog(((data as { options?: { locale?: string } }).options || {}).locale || pageLang).then((messages) => ns.mount!(el, data, messages)),
    );
  }

  function scan(): void {
    const found = document.querySelectorAll<HTMLElement>('[' + CONTAINER_ATTR + ']');
    for (let i = 0; i < found.length; i++) {
      const el = found[i]!;
      if (!done.has(el)) start(el);
    }
  }

  scan();
  // An async script may run before the rest of the page is parsed.
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', scan);
})();
