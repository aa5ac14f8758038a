/** Client-side routes: the navigation, the server's page list (api/dashboard/pages.ts) and the page folders read the same. */
import { useEffect, useState } from 'preact/hooks';

export const PATHS = {
  signIn: '/dashboard/sign-in',
  overview: '/dashboard/overview',
  reviews: '/dashboard/reviews',
  products: '/dashboard/products',
  widgets: '/dashboard/widgets',
  apiKeys: '/dashboard/api-keys',
  members: '/dashboard/members',
  audit: '/dashboard/audit',
  sources: '/dashboard/sources',
  webhooks: '/dashboard/webhooks',
  invitation: '/dashboard/invitation',
  collect: '/dashboard/collect',
} as const;

const EVENT = 'rp:navigate';

export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  dispatchEvent(new Event(EVENT));
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    addEventListener('popstate', update);
    addEventListener(EVENT, update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener(EVENT, update);
    };
  }, []);
  return path.replace(/\/+$/, '') || '/dashboard';
}

/** A plain link that navigates without a page load (modified clicks keep their browser meaning). */
export function onLinkClick(event: MouseEvent, href: string): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(href);
}
