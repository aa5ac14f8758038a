/** Sign-in: Email, Password, Sign in (CONTRACT §6). The same message for an unknown email and a wrong password. */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type SessionInfo } from '../../api.ts';

export function SignInPage(props: { onSignedIn: (session: SessionInfo) => void; notice?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · Review Proof';
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      props.onSignedIn(await call<SessionInfo>('POST', '/sign-in', { email, password }));
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
        <h1>Sign in</h1>
        <p class="muted">Manage API keys, widgets and your team.</p>
        {props.notice && !error && (
          <p class="notice notice-info" role="status">
            {props.notice}
          </p>
        )}
        <form onSubmit={submit} noValidate={false}>
          <div class="field">
            <label for="email">Email</label>
            <input id="email" name="email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          </div>
          {error && (
            <p class="notice notice-error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" class="button primary wide" disabled={busy}>
            Sign in
          </button>
        </form>
      </div>
    </main>
  );
}
