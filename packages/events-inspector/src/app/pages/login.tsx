import { useState } from 'preact/hooks';
import { describeError } from '../api/client.js';
import { signIn } from '../session.js';

/** The admin token, typed once; the server answers with a session cookie and the page forgets the token. */
export function Login({ onSignedIn }: { onSignedIn: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const token = String(new FormData(form).get('token') ?? '');
    setBusy(true);
    setError(null);
    try {
      await signIn(token);
      form.reset();
      onSignedIn();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form onSubmit={submit} class="card">
        <h1>Events inspector</h1>
        <p class="muted">Sign in with the admin token the server printed when it started.</p>
        <label>
          <span>Admin token</span>
          <input name="token" type="password" autocomplete="current-password" required autofocus />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
