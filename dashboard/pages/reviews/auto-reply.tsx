/**
 * The automatic-reply rule (CONTRACT §15), in the Reply templates dialog:
 * reply with a template to reviews of N stars or more that have no text,
 * after the delay. Off by default; Owner and Admin change it (audited),
 * a Member sees it read-only. A refusal is shown under the field it names.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError } from '../../api.ts';

interface Rule {
  enabled: boolean;
  minRating: number;
  templateId: string;
}

export function AutoReplySection(props: { staff: boolean; templates: { id: string; name: string }[] }) {
  const { staff } = props;
  const [rule, setRule] = useState<Rule | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    call<{ enabled: boolean; minRating: number | null; templateId: string | null }>('GET', '/replies/auto-reply').then(
      (r) => setRule({ enabled: r.enabled, minRating: r.minRating ?? 5, templateId: r.templateId ?? '' }),
      (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the automatic-reply rule.'),
    );
  }, []);

  const save = async (event: Event) => {
    event.preventDefault();
    if (!rule) return;
    setBusy(true);
    setFields({});
    setError('');
    setStatus('');
    try {
      const saved = await call<Rule>('PATCH', '/replies/auto-reply', rule);
      setRule(saved);
      setStatus(saved.enabled ? `Automatic replies are on for ${saved.minRating}+ stars.` : 'Automatic replies are off.');
    } catch (err) {
      const named = err instanceof DashboardError ? Object.keys(err.details)[0] : undefined;
      const message = err instanceof DashboardError ? err.message : 'Something went wrong. Try again.';
      if (named) {
        setFields({ [named]: words(named, (err as DashboardError).details[named]!, rule.minRating) ?? message });
        document.getElementById(`auto-${named}`)?.focus();
      } else setError(message);
    } finally {
      setBusy(false);
    }
  };

  const described = (name: string) => (fields[name] ? `auto-${name}-error` : undefined);
  const problem = (name: string) =>
    fields[name] ? (
      <p class="field-error" id={`auto-${name}-error`}>
        {fields[name]}
      </p>
    ) : null;

  return (
    <form class="template-form auto-reply" onSubmit={save} aria-labelledby="auto-title" noValidate>
      <h3 id="auto-title">Automatic replies</h3>
      <p class="hint" id="auto-hint">
        Off by default; replies are posted after the delay and can be cancelled meanwhile.{!staff && ' Only an Owner or Admin can change this.'}
      </p>
      <p class="hint" id="auto-scope">
        It answers only reviews written since it was turned on (or up to 2 days before, for platforms that publish late): Google and Trustpilot reviews written after their source was connected, and reviews from your review page. Never what was already on a platform when you connected it, nor a file import. At most 30 are posted a minute; more wait their turn. Just before posting, a review that got a reply, text or fewer stars meanwhile is left as a draft instead.
      </p>
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
      {rule && (
        <>
          <label class="check">
            <input id="auto-enabled" type="checkbox" checked={rule.enabled} disabled={!staff} aria-describedby={described('enabled') ?? 'auto-hint auto-scope'} onChange={(e) => setRule({ ...rule, enabled: e.currentTarget.checked })} />
            Reply automatically to reviews of {rule.minRating} {rule.minRating === 1 ? 'star' : 'stars'} or more that have no text
          </label>
          {problem('enabled')}
          <div class="field-row">
            <div class="field">
              <label for="auto-minRating">Stars or more</label>
              <select id="auto-minRating" value={String(rule.minRating)} disabled={!staff} aria-invalid={fields.minRating ? 'true' : undefined} aria-describedby={described('minRating')} onChange={(e) => setRule({ ...rule, minRating: Number(e.currentTarget.value) })}>
                {[5, 4, 3, 2, 1].map((n) => (
                  <option key={n} value={String(n)}>
                    {n} {n === 1 ? 'star' : 'stars'}
                  </option>
                ))}
              </select>
              {problem('minRating')}
            </div>
            <div class="field">
              <label for="auto-templateId">Template</label>
              <select id="auto-templateId" value={rule.templateId} disabled={!staff} aria-invalid={fields.templateId ? 'true' : undefined} aria-describedby={described('templateId')} onChange={(e) => setRule({ ...rule, templateId: e.currentTarget.value })}>
                <option value="">Choose a template</option>
                {props.templates.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
              {problem('templateId')}
            </div>
          </div>
          {staff && (
            <div class="dialog-actions">
              <button type="submit" class="button primary" disabled={busy}>
                Save automatic replies
              </button>
            </div>
          )}
        </>
      )}
      <p class="reply-done" role="status">
        {status}
      </p>
    </form>
  );
}

/** The server's reason for a field (api/replies/service.ts setAutoReply), in a sentence. */
function words(field: string, reason: string, minRating: number): string | null {
  if (field === 'templateId' && reason === 'required') return 'Choose the template to reply with.';
  if (field === 'templateId' && reason === 'unknown') return 'This template no longer exists: choose another.';
  if (field === 'templateId' && reason === 'ratings') return `This template does not suit every rating from ${minRating} to 5 stars: choose one that does (or raise the minimum).`;
  if (field === 'minRating') return 'Choose from 1 to 5 stars.';
  return null;
}
