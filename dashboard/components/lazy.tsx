/**
 * A page whose code is loaded by `import()` when it is first shown, so that
 * the other pages never download it (esbuild splits it into a chunk; the
 * build's per-page budgets count it for that page only). While it loads, a
 * polite status; if it cannot load, an error the person can act on.
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Loading, Notice } from './page.tsx';

export function lazyPage<P extends object>(what: string, load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  return function LazyPage(props: P) {
    const [page, setPage] = useState<ComponentType<P> | null>(() => loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (page) return;
      let live = true;
      pending ??= load().then((component) => (loaded = component));
      pending.then(
        (component) => live && setPage(() => component),
        () => {
          pending = null;
          if (live) setFailed(true);
        },
      );
      return () => {
        live = false;
      };
    }, [page]);
    if (failed) {
      return (
        <Notice tone="error" role="alert">
          This page could not be loaded. Check your connection and reload the page.
        </Notice>
      );
    }
    if (!page) return <Loading what={what} />;
    const Page = page;
    return <Page {...props} />;
  };
}
