/**
 * The stylesheet adopted by every widget's shadow root: a constructable
 * stylesheet, not a <style> element, so a CSP without 'unsafe-inline' allows
 * it, and one object shared by all widgets on the page.
 */

/** The CSS of styles.ts, inlined by widget/build.ts. */
declare const __RV_CSS__: string;

let shared: CSSStyleSheet | undefined;

export function widgetSheet(): CSSStyleSheet {
  if (!shared) {
    shared = new CSSStyleSheet();
    shared.replaceSync(__RV_CSS__);
  }
  return shared;
}
