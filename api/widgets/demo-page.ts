/** GET /demo: every layout of the demo organization's widgets, each with the snippet to copy. */
import { layoutHeight } from '../../widget/src/layout-height.ts';
import { snippetFor } from '../../widget/src/snippet.ts';
import { DEMO_ORG_NAME } from '../demo/constants.ts';
import { FAVICON_LINK } from '../site/favicon.ts';
import { WIDGET_LAYOUTS, type Store } from '../store/types.ts';

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `knownOrgId`: the demo organization found by an earlier call (so that only the first one lists organizations). */
export async function demoPage(store: Store, origin: string, knownOrgId: string | null = null): Promise<{ orgId: string; html: string } | null> {
  const org = knownOrgId !== null ? await store.orgs.get(knownOrgId) : (await store.orgs.list()).find((o) => o.name === DEMO_ORG_NAME);
  if (!org) return null;
  const widgets = [...(await store.widgets.listByOrg(org.id))].sort((a, b) => WIDGET_LAYOUTS.indexOf(a.layout) - WIDGET_LAYOUTS.indexOf(b.layout));
  const sections = widgets
    .map((w) => {
      const snippet = snippetFor({ origin, widgetId: w.id, height: layoutHeight(w.layout, w.options) });
      return `<section>
  <h2>${escape(w.name)} <small>(${escape(w.layout)}, widget id <code>${escape(w.id)}</code>)</small></h2>
  ${snippet}
  <details><summary>Snippet to paste</summary><pre><code>${escape(snippet)}</code></pre></details>
</section>`;
    })
    .join('\n');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="Live review widgets of ${escape(org.name)}: carousel, grid, list and badge, each with the snippet to paste into a page.">
<title>Review widget demo — ${escape(org.name)}</title>
${FAVICON_LINK}
<style>
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; background: #f6f7fb; color: #1f2330; }
  main { max-width: 1100px; margin: 0 auto; padding: 32px 20px 64px; }
  h1 { font-size: 28px; margin: 0 0 4px; }
  p.lead { color: #4a5068; margin: 0 0 32px; }
  section { margin: 0 0 48px; }
  h2 { font-size: 18px; margin: 0 0 12px; }
  h2 small { font-weight: 400; color: #5b6278; font-size: 14px; }
  pre { background: #1f2330; color: #e8eaf2; padding: 12px; border-radius: 8px; overflow-x: auto; font-size: 13px; white-space: pre-wrap; word-break: break-all; }
  details { margin-top: 12px; }
</style>
</head>
<body>
<main>
  <h1>Review widgets for ${escape(org.name)}</h1>
  <p class="lead">Each block below is the snippet from <code>GET /api/v1/widgets/{id}/embed</code>, pasted as is. Change a widget with <code>npm run admin -- widgets update &lt;id&gt; …</code>.</p>
${sections}
</main>
</body>
</html>`;
  return { orgId: org.id, html };
}
