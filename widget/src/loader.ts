/**
 * The loader a site pastes (built to widget/dist/loader.js, one IIFE, no
 * imports left after bundling). It finds every widget container, reserves its
 * height, and for each one fetches the public data while the Preact bundle
 * loads: the bundle once per page, the data once per widget id. It sets no
 * cookie, touches no storage, and creates one global: window.ReviewProof.
 */
import { ASSET_PATH, CONTAINER_ATTR, DATA_PATH, HEIGHT_ATTR, LOG_PREFIX, NAMESPACE, ORIGIN_ATTR } from './protocol.ts';

/** File name of the hashed bundle, defined by widget/build.ts. */
declare const __RV_BUNDLE__: string;

/** window.ReviewProof: what the loader and the bundle share. */
export interface Namespace {
  /** Render containers added since the last scan (single-page apps call this). */
  scan(): void;
  /** Set by the bundle when it has loaded. */
  mount?: (container: HTMLElement, data: unknown) => void;
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
  const self = document.currentScript as HTMLScriptElement | null;
  const scriptOrigin = self && self.src ? new URL(self.src).origin : '';
  const done = new WeakSet<Element>();
  const requests = new Map<string, Promise<unknown>>();
  let bundle: Promise<void> | undefined;
  const ns: Namespace = { scan };
  w[NAMESPACE] = ns;

  function loadBundle(origin: string): Promise<void> {
    bundle ??= new Promise<void>((resolve, reject) => {
      const tag = document.createElement('script');
      tag.async = true;
      tag.src = origin + ASSET_PATH + __RV_BUNDLE__;
      tag.onload = tag.onerror = () => (ns.mount ? resolve() : reject(new Error('bundle failed to load')));
      (document.head || document.documentElement).appendChild(tag);
    });
    return bundle;
  }

  function loadData(origin: string, id: string): Promise<unknown> {
    const key = origin + ' ' + id;
    let request = requests.get(key);
    if (!request) {
      request = fetch(origin + DATA_PATH + encodeURIComponent(id), { credentials: 'omit', mode: 'cors' }).then((res) => {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json().then((body: { data?: unknown }) => body.data);
      });
      // A failed request may succeed on a later scan.
      request.catch(() => requests.delete(key));
      requests.set(key, request);
    }
    return request;
  }

  function start(el: HTMLElement): void {
    done.add(el);
    const id = el.getAttribute(CONTAINER_ATTR) || '';
    const origin = el.getAttribute(ORIGIN_ATTR) || scriptOrigin;
    const height = el.getAttribute(HEIGHT_ATTR) || '';
    // Through CSSOM: a strict CSP drops the snippet's style attribute but not this.
    if (/^\d{1,5}$/.test(height)) el.style.minHeight = height + 'px';
    if (!id || !/^https?:\/\//.test(origin)) return warn('container without widget id or origin', el);
    // Both requests start now and run in parallel.
    Promise.all([loadData(origin, id), loadBundle(origin)])
      .then(([data]) => ns.mount!(el, data))
      .catch((error: unknown) => {
        el.style.minHeight = '';
        warn('widget ' + id + ' could not be shown:', error);
      });
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
