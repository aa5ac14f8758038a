/**
 * The loader a site pastes (built to widget/dist/loader.js, one IIFE, no
 * imports left after bundling). It finds every widget container, reserves its
 * height, fetches the public data (once per widget id), and then imports the
 * chunk of that widget's layout (an ES module, hashed name) with the
 * language's catalog: a page loads only the layouts it shows, and the code
 * they share once (the browser's module map holds each file once per page).
 * It sets no cookie, touches no storage, and creates one global:
 * window.ReviewProof.
 *
 * Everything is loaded from the origin of the loader's own <script src>, and
 * only from there: page markup (which may hold user content with data-
 * attributes) never chooses where script or data comes from. The chunks
 * import each other by relative URLs, i.e. from that same origin.
 */
import type { Messages } from './messages.ts';
import type { Mount } from './mount.ts';
import { ASSET_PATH, CONTAINER_ATTR, DATA_ATTR, DATA_PATH, HEIGHT_ATTR, LOADER_FILE, LOG_PREFIX, NAMESPACE, PRODUCT_ATTR } from './protocol.ts';

/** The chunks (hashed file names) of the badge and of the framed layouts (every other), defined by widget/build.ts. */
declare const __RV_BADGE__: string;
declare const __RV_FRAMED__: string;
/** The chunks every layout imports, defined by widget/build.ts: started before the data is in. */
declare const __RV_CORE__: string[];
/** Catalog file name with `*` for the language (hashed), defined by widget/build.ts. */
declare const __RV_CATALOG__: string;
/** The catalogs' languages, space separated, defined by widget/build.ts. */
declare const __RV_LANGS__: string;

/** window.ReviewProof: what the loader offers the page. */
export interface Namespace {
  /** Render containers added since the last scan (single-page apps call this). */
  scan(): void;
  /**
   * Render `data` (the shape of GET /public/v1/widgets/{id}) into `container`
   * with the same chunks and catalogs as every snippet; again into the same
   * container re-renders in place. The dashboard's live preview uses it.
   */
  render(container: HTMLElement, data: unknown): Promise<void>;
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
  if (!origin) return warn('loader origin unknown: nothing loaded');
  const done = new WeakSet<Element>();
  /** Data and catalogs by path, requested once per page (a failed request is forgotten). */
  const requests = new Map<string, Promise<unknown>>();
  // The language rule of mount.ts: the widget's locale, else <html lang>, else the browser's.
  const pageLang = document.documentElement.lang || navigator.language || '';
  const ns: Namespace = {
    scan,
    render: (el, data) => {
      done.add(el);
      return show(el, data as object);
    },
  };
  w[NAMESPACE] = ns;

  /** A JSON file from our origin, once per page; a failed request may succeed on a later scan. */
  function getJson(path: string): Promise<unknown> {
    let request = requests.get(path);
    if (!request) {
      request = fetch(origin + path, { credentials: 'omit' }).then((res) => {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json();
      });
      request.catch(() => requests.delete(path));
      requests.set(path, request);
    }
    return request;
  }

  /** The catalog of a locale's language (English's for a language without one), once per page. */
  function loadCatalog(locale: string): Promise<unknown> {
    let lang = locale.split('-')[0]!.toLowerCase();
    if (!lang || (' ' + __RV_LANGS__ + ' ').indexOf(' ' + lang + ' ') < 0) lang = 'en';
    return getJson(ASSET_PATH + __RV_CATALOG__.replace('*', lang));
  }

  /**
   * Renders data into a container: the chunk of its layout (unknown layouts
   * are drawn as the carousel, as mount.ts does) and the catalog of its
   * language, both from our origin, in parallel.
   */
  function show(el: HTMLElement, data: { layout?: string; options?: { locale?: string } }): Promise<void> {
    const file = data.layout === 'badge' ? __RV_BADGE__ : __RV_FRAMED__;
    return Promise.all([import(origin + ASSET_PATH + file) as Promise<{ mount: Mount }>, loadCatalog(data.options?.locale || pageLang)]).then(
      ([chunk, messages]) => chunk.mount(el, data, messages as Messages),
    );
  }

  function start(el: HTMLElement): void {
    done.add(el);
    const id = el.getAttribute(CONTAINER_ATTR) || '';
    const height = el.getAttribute(HEIGHT_ATTR) || '';
    // Through CSSOM: a strict CSP drops the snippet's style attribute but not this.
    if (/^\d{1,5}$/.test(height)) el.style.minHeight = height + 'px';
    if (!id) return warn('container without widget id', el);
    // The page's product (productFrom: "page"): a query value only, encoded, never where anything
    // loads from; the service answers 400 to anything but a catalog id.
    const product = el.getAttribute(PRODUCT_ATTR);
    // A server-rendered widget carries its data in its shadow root: no second fetch.
    const embedded = el.shadowRoot?.querySelector('script[' + DATA_ATTR + ']');
    // `path`: the widget id, URI-encoded, with the page's product as its query (a checked catalog id).
    const path = encodeURIComponent(id) + (product ? '?productId=' + encodeURIComponent(product) : '');
    const data = embedded
      ? Promise.resolve().then(() => JSON.parse(embedded.textContent || '') as unknown)
      : getJson(DATA_PATH + path).then((body) => (body as { data?: unknown }).data);
    // The page's catalog and the code every layout shares load with the data (once: the browser's
    // module map and `requests` keep them); a widget with its own locale may need one more catalog.
    loadCatalog(pageLang).catch(() => undefined);
    for (const file of __RV_CORE__) import(origin + ASSET_PATH + file).catch(() => undefined);
    data
      .then((data) => show(el, data as object))
      .catch((error: unknown) => {
        el.style.minHeight = '';
        warn('widget ' + id + ' could not be shown:', error);
      });
  }

  function scan(): void {
    document.querySelectorAll<HTMLElement>('[' + CONTAINER_ATTR + ']').forEach((el) => done.has(el) || start(el));
  }

  scan();
  // An async script may run before the rest of the page is parsed.
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', scan);
})();
