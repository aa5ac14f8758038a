/**
 * Removals held for a person (CONTRACT §11, "A removal is never a guess"): a
 * full pass that would remove more than 10 % of a source's reviews removes
 * nothing and waits here. Owners and Admins answer `Remove them` (the reviews
 * leave the API, widgets and statistics; receivers get review.removed) or
 * `Keep them` (they stay, and this source's full passes leave them alone);
 * a Member sees the question and who answers it.
 */
import { useState } from 'preact/hooks';
import { call, DashboardError, type SourceItem } from '../../api.ts';
import { formatNumber } from '../../format.ts';

const PLATFORMS: Record<string, string> = { google: 'Google', trustpilot: 'Trustpilot', yelp: 'Yelp', facebook: 'Facebook', g2: 'G2' };

function Held(props: { source: SourceItem; staff: boolean; onDone: (text: string) => void }) {
  const s = props.source;
  const platform = PLATFORMS[s.platform] ?? s.platform;
  const label = `${platform} ${s.name}`;
  const n = s.heldRemovals;
  const count = `${formatNumber(n)} ${n === 1 ? 'review' : 'reviews'}`;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const answer = async (path: 'release-removals' | 'keep-removals') => {
    setBusy(true);
    setError('');
    try {
      if (path === 'release-removals') {
        const { removed } = await call<{ id: string; removed: number }>('POST', `/sources/${encodeURIComponent(s.id)}/release-removals`);
        props.onDone(`${formatNumber(removed)} ${removed === 1 ? 'review' : 'reviews'} of ${label} removed.`);
      } else {
        const { kept } = await call<{ id: string; kept: number }>('POST', `/sources/${encodeURIComponent(s.id)}/keep-removals`);
        props.onDone(`${formatNumber(kept)} ${kept === 1 ? 'review' : 'reviews'} of ${label} kept.`);
      }
    } catch (err) {
      setError(err instanceof DashboardError ? err.message : 'Something went wrong. Try again.');
      setBusy(false);
    }
  };
  const id = `held-${s.id}`;
  return (
    <section class="notice notice-warning held-removals" aria-labelledby={id}>
      <h2 id={id}>
        {platform} no longer lists {count}
      </h2>
      <p>
        The last full sync of {label} did not find {count} it had collected: more than 10 % of its reviews, so nothing was removed. Remove them and they leave the reviews API, widgets and statistics (webhook
        receivers are told); keep them and they stay, and this source will not remove them later.
      </p>
      {props.staff ? (
        <p>
          <button type="button" class="button danger-outline small" disabled={busy} aria-label={`Remove them: ${count} of ${label}`} onClick={() => void answer('release-removals')}>
            Remove them
          </button>{' '}
          <button type="button" class="button secondary small" disabled={busy} aria-label={`Keep them: ${count} of ${label}`} onClick={() => void answer('keep-removals')}>
            Keep them
          </button>
        </p>
      ) : (
        <p>An Owner or Admin decides.</p>
      )}
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

/** One question per source with held removals; nothing when there is none. */
export function HeldRemovals(props: { sources: SourceItem[]; staff: boolean; onDone: (text: string) => void }) {
  const held = props.sources.filter((s) => s.heldRemovals > 0);
  if (held.length === 0) return null;
  return (
    <>
      {held.map((s) => (
        <Held key={s.id} source={s} staff={props.staff} onDone={props.onDone} />
      ))}
    </>
  );
}
