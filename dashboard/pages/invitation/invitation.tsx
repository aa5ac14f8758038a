/**
 * Accepting an invitation: the one-time token comes in the link's fragment
 * (never sent in a URL to any server). The page is the same whether the email
 * has an account or not (nothing tells them apart before a password is
 * proven): one password field, for the account's password if there is one,
 * else a new one. Either way the person is signed in to the organization.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type Role, type SessionInfo } from '../../api.ts';
import { formatDateTime, ROLE_LABELS } from '../../format.ts';

interface InvitationInfo {
  email: string;
  role: Role;
  organization: string;
  expiresAt: string;
}

// Read once and taken out of the address bar and history.
const token = location.hash.slice(1);
if (token) history.replaceState(null, '', location.pathname);

export function InvitationPage(props: { onSignedIn: (session: SessionInfo) => void }) {
  const [info, setInfo] = useState<InvitationInfo | null>(null);
  const [problem, setProblem] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = 'Accept invitation · Review Proof';
    if (!token) {
      setProblem('This page needs the whole invitation link. Open the link you were given again.');
      return;
    }
    call<InvitationInfo>('POST', '/invitations/lookup', { token }).then(setInfo, (err: unknown) =>
      setProblem(err instanceof DashboardError ? err.message : 'The invitation could not be read.'),
    );
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      props.onSignedIn(await call<SessionInfo>('POST', '/invitations/accept', { token, password }));
    } catch (err) {
      setError(err instanceof DashboardError ? err.message : 'Something went wrong. Try again.');
      setBusy(false);
    }
  };

  return (
    <main class="auth">
      <div class="auth-card card">
        <div class="brand brand-large">
          <span class="brand-mark" aria-hidden="true">
            ★
          </span>
          <span class="brand-name">Review Proof</span>
        </div>
        <h1>Accept invitation</h1>
        {problem && (
          <p class="notice notice-error" role="alert">
            {problem}
          </p>
        )}
        {!problem && !info && (
          <p class="muted" role="status">
            Checking the invitation…
          </p>
        )}
        {info && (
          <form onSubmit={submit}>
            <p>
              Join <strong>{info.organization}</strong> as <strong>{ROLE_LABELS[info.role]}</strong>. The link works once, until {formatDateTime(info.expiresAt)}.
            </p>
            <div class="field">
              <label for="invite-email">Email</label>
              <input id="invite-email" type="email" autoComplete="username" readOnly value={info.email} />
            </div>
            <div class="field">
              <label for="new-password">Password</label>
              <input
                id="new-password"
                type="password"
                autoComplete="current-password"
                required
                minLength={12}
                aria-describedby="new-password-hint"
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
              <p class="hint" id="new-password-hint">
                Already use Review Proof with this email? Enter that password: you join {info.organization} with the same account. New here? Choose a password of at least 12
                characters; a phrase of a few words is easy to remember and hard to guess.
              </p>
            </div>
            {error && (
              <p class="notice notice-error" role="alert">
                {error}
              </p>
            )}
            <button type="submit" class="button primary wide" disabled={busy}>
              Accept and sign in
            </button>
          </form>
        )}
      </div>
    </main>
  );
}
