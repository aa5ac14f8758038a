/** The dashboard: loads the session, then shows sign-in, an invitation, or the signed-in shell with the page of the path. */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, setCsrfToken, whenSignedOut, type SessionInfo } from './api.ts';
import { Notice } from './components/page.tsx';
import { Shell } from './components/shell.tsx';
import { ApiKeysPage } from './pages/api-keys/api-keys.tsx';
import { AuditPage } from './pages/audit/audit.tsx';
import { InvitationPage } from './pages/invitation/invitation.tsx';
import { MembersPage } from './pages/members/members.tsx';
import { OverviewPage } from './pages/overview/overview.tsx';
import { ReviewsPage } from './pages/reviews/reviews.tsx';
import { SignInPage } from './pages/sign-in/sign-in.tsx';
import { WidgetsPage } from './pages/widgets/widgets.tsx';
import { navigate, PATHS, usePath } from './router.ts';

function Page(props: { path: string; session: SessionInfo }) {
  switch (props.path) {
    case PATHS.reviews:
      return <ReviewsPage />;
    case PATHS.widgets:
      return <WidgetsPage />;
    case PATHS.apiKeys:
      return <ApiKeysPage session={props.session} />;
    case PATHS.members:
      return <MembersPage session={props.session} />;
    case PATHS.audit:
      return <AuditPage session={props.session} />;
    default:
      return <OverviewPage session={props.session} />;
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
    if (path === PATHS.signIn || path === PATHS.invitation || path === '/dashboard') navigate(PATHS.overview, true);
  };

  if (error) {
    return (
      <main class="auth">
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      </main>
    );
  }
  if (!session) return null;
  if (path === PATHS.invitation && !session.user) return <InvitationPage onSignedIn={signedIn} />;
  if (!session.user) {
    if (path !== PATHS.signIn) navigate(PATHS.signIn, true);
    return <SignInPage onSignedIn={signedIn} notice={notice} />;
  }
  if (path === PATHS.signIn || path === '/dashboard' || path === PATHS.invitation) {
    navigate(PATHS.overview, true);
    return null;
  }
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
