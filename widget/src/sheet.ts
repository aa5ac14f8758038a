/**
 * The stylesheets adopted by the widgets' shadow roots: constructable
 * stylesheets, not <style> elements, so a CSP without 'unsafe-inline' allows
 * them, and one object per part shared by all widgets on the page. The parts
 * (styles.ts CSS_PARTS) reach the chunks as string constants (widget/build.ts),
 * each in the chunk of the layouts that use it.
 */

/** The base part of styles.ts, inlined by widget/build.ts. */
declare const __RV_CSS_BASE__: string;

const sheets = new Map<string, CSSStyleSheet>();

export function sheet(css: string): CSSStyleSheet {
  let made = sheets.get(css);
  if (!made) {
    made = new CSSStyleSheet();
    made.replaceSync(css);
    sheets.set(css, made);
  }
  return made;
}

/** The rules every layout uses; the layout's own parts come after it. */
export const baseSheet = (): CSSStyleSheet => sheet(__RV_CSS_BASE__);
