/** The dashboard: loads the session, then shows sign-in, an invitation, or the signed-in shell with the page of the path. */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, setCsrfToken, whenSignedOut, type SessionInfo } from './api.ts';
import { lazyPage } from './components/lazy.tsx';
import { Notice } from './components/page.tsx';
import { Shell } from './components/shell.tsx';
import { InvitationPage } from './pages/invitation/invitation.tsx';
import { MembersPage } from './pages/members/members.tsx';
import { NotFoundPage } from './pages/not-found/not-found.tsx';
import { OverviewPage } from './pages/overview/overview.tsx';
import { SignInPage } from './pages/sign-in/sign-in.tsx';
import { WidgetsPage } from './pages/widgets/widgets.tsx';
import { navigate, PATHS, usePath } from './router.ts';

/** The widget builder is the largest page: its code (and the preview's) loads only when it is opened. */
/** The Reviews page (filters, import, moderation) too: the other pages, the Overview first, stay small. */
const ReviewsPage = lazyPage('the reviews', () => import('./pages/reviews/reviews.tsx').then((m) => m.ReviewsPage));
/** Products (the catalog, its dialogs and the import): only when opened. */
const ProductsPage = lazyPage('the products', () => import('./pages/products/products.tsx').then((m) => m.ProductsPage));
/** Collect (the review link, its QR code, settings, pending reviews): only when opened. */
const CollectPage = lazyPage('the review link', () => import('./pages/collect/collect.tsx').then((m) => m.CollectPage));
/** Sources (connect forms, Google, dialogs): only when opened. */
const SourcesPage = lazyPage('the sources', () => import('./pages/sources/sources.tsx').then((m) => m.SourcesPage));
/** Webhooks (the list, its dialogs and an endpoint's delivery log): only when opened. */
const WebhooksPage = lazyPage('the webhooks', () => import('./pages/webhooks/webhooks.tsx').then((m) => m.WebhooksPage));
/** API keys (the list, the create and revoke dialogs; Owners and Admins): only when opened. */
const ApiKeysPage = lazyPage('the API keys', () => import('./pages/api-keys/api-keys.tsx').then((m) => m.ApiKeysPage));
/** The audit log (Owners and Admins, now and then; its words for every action): only when opened. */
const AuditPage = lazyPage('the audit log', () => import('./pages/audit/audit.tsx').then((m) => m.AuditPage));
const WidgetBuilderPage = lazyPage('the widget builder', () => import('./pages/widgets/builder.tsx').then((m) => m.WidgetBuilderPage));

function Page(props: { path: string; session: SessionInfo }) {
  // The builder: /dashboard/widgets/new, /dashboard/widgets/{id}.
  if (props.path.startsWith(`${PATHS.widgets}/`)) {
    // Saving a new widget moves to its own path: the same page instance carries on.
    const id = props.path.slice(PATHS.widgets.length + 1);
    return <WidgetBuilderPage id={id === 'new' ? null : id} session={props.session} />;
  }
  // An endpoint's detail view: /dashboard/webhooks/{id}.
  if (props.path === PATHS.webhooks || props.path.startsWith(`${PATHS.webhooks}/`)) {
    const id = props.path.slice(PATHS.webhooks.length + 1);
    return <WebhooksPage session={props.session} id={id ? decodeURIComponent(id) : null} />;
  }
  switch (props.path) {
    case PATHS.reviews:
      return <ReviewsPage session={props.session} />;
    case PATHS.products:
      return <ProductsPage session={props.session} />;
    case PATHS.collect:
      return <CollectPage session={props.session} />;
    case PATHS.widgets:
      return <WidgetsPage session={props.session} />;
    case PATHS.apiKeys:
      return <ApiKeysPage session={props.session} />;
    case PATHS.members:
      return <MembersPage session={props.session} />;
    case PATHS.sources:
      return <SourcesPage session={props.session} />;
    case PATHS.audit:
      return <AuditPage session={props.session} />;
    case PATHS.overview:
      return <OverviewPage session={props.session} />;
    default:
      return <NotFoundPage path={props.path} />;
  }
}

export function App() {
  const path = usePath();
  const [session, setSession] = useState<SessionInfo | null>(null);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');

  const load = () =>
    call<SessionInfo>('GET', '/session').then(
      (s) => {
        setCsrfToken(s.csrfToken);
        setSession(s);
      },
      (err: unknown) => setError(err instanceof DashboardError ? err.message : 'The dashboard could not start.'),
    );
  useEffect(() => {
    whenSignedOut(() => {
      setNotice('Your session has ended. Sign in again to continue.');
      void load();
    });
    void load();
  }, []);

  const signedIn = (s: SessionInfo) => {
    setCsrfToken(s.csrfToken);
    setSession(s);
    setNotice('');
  };

  // Where this path belongs for this session: signed out → sign-in (an invitation excepted); signed in → not the sign-in page.
  const redirect = !session
    ? null
    : !session.user
      ? path === PATHS.invitation || path === PATHS.signIn
        ? null
        : PATHS.signIn
      : path === PATHS.signIn || path === PATHS.invitation || path === '/dashboard'
        ? PATHS.overview
        : null;
  useEffect(() => {
    if (redirect) navigate(redirect, true);
  }, [redirect]);

  if (error) {
    return (
      <main class="auth">
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      </main>
    );
  }
  if (!session || redirect) return null;
  if (!session.user) return path === PATHS.invitation ? <InvitationPage onSignedIn={signedIn} /> : <SignInPage onSignedIn={signedIn} notice={notice} />;
  return (
    <Shell
      session={session}
      path={path}
      onSignOut={async () => {
        await call('POST', '/sign-out').catch(() => undefined);
        setNotice('You have signed out.');
        await load();
      }}
    >
      <Page path={path} session={session} />
    </Shell>
  );
}
