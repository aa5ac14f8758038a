/**
 * Reply templates (CONTRACT §15), opened from the Reviews page: the
 * organization's templates (everyone reads them), and for an Owner or Admin a
 * form to add or edit one (name, language, the ratings it suits, the text
 * with {author}, {business} and {product}) and Remove after a confirmation.
 * The composer proposes the one that suits a review, filled in. Below, the
 * automatic-reply rule (auto-reply.tsx).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, DashboardError, type SessionInfo } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { Loading, Notice } from '../../components/page.tsx';
import { AutoReplySection } from './auto-reply.tsx';

interface Template {
  id: string;
  name: string;
  language: string;
  ratings: number[];
  text: string;
}
type Draft = Omit<Template, 'id'>;
const EMPTY: Draft = { name: '', language: 'en', ratings: [], text: '' };

export function TemplatesDialog(props: { session: SessionInfo; onClose: () => void }) {
  const staff = props.session.user!.role !== 'member';
  const [list, setList] = useState<Template[] | null>(null);
  const [max, setMax] = useState(100);
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [removing, setRemoving] = useState<Template | null>(null);
  const [busy, setBusy] = useState(false);
  const nameField = useRef<HTMLInputElement>(null);
  const removeButton = useRef<HTMLButtonElement>(null);

  const load = () =>
    call<{ data: Template[]; max: number }>('GET', '/replies/templates').then(
      (res) => {
        setList(res.data);
        setMax(res.max);
      },
      (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the templates.'),
    );
  useEffect(() => {
    void load();
  }, []);
  useEffect(() => {
    if (removing) removeButton.current?.focus();
  }, [removing]);

  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFields({});
    setError('');
    try {
      const saved = editing ? await call<Template>('PATCH', `/replies/templates/${encodeURIComponent(editing)}`, draft) : await call<Template>('POST', '/replies/templates', draft);
      setStatus(`Template “${saved.name}” ${editing ? 'saved' : 'added'}.`);
      setEditing(null);
      setDraft(EMPTY);
      await load();
    } catch (err) {
      const details = err instanceof DashboardError ? Object.entries(err.details) : [];
      if (details.length > 0) setFields(Object.fromEntries(details.map(([k, v]) => [k, `${v.charAt(0).toUpperCase()}${v.slice(1)}.`])));
      else setError(err instanceof DashboardError ? err.message : 'Something went wrong. Try again.');
      // Focus on the first field the server named (the ratings: their first box).
      const first = details[0]?.[0];
      const target = first === 'ratings' ? document.querySelector<HTMLInputElement>('.template-ratings input') : first ? document.getElementById(`tpl-${first}`) : null;
      (target ?? nameField.current)?.focus();
    } finally {
      setBusy(false);
    }
  };

  const remove = async (t: Template) => {
    setBusy(true);
    try {
      await call('DELETE', `/replies/templates/${encodeURIComponent(t.id)}`);
      setStatus(`Template “${t.name}” removed.`);
      setRemoving(null);
      await load();
    } catch (err) {
      setError(err instanceof DashboardError ? err.message : 'Something went wrong. Try again.');
    } finally {
      setBusy(false);
    }
  };

  const described = (name: string, hint?: string) => [fields[name] && `tpl-${name}-error`, hint].filter(Boolean).join(' ') || undefined;
  const problem = (name: string) =>
    fields[name] ? (
      <p class="field-error" id={`tpl-${name}-error`}>
        {fields[name]}
      </p>
    ) : null;
  const toggle = (n: number) => setDraft({ ...draft, ratings: draft.ratings.includes(n) ? draft.ratings.filter((r) => r !== n) : [...draft.ratings, n].sort() });

  return (
    <Dialog id="reply-templates" title="Reply templates" onClose={props.onClose}>
      <p class="hint">
        Replying to a review proposes the template that suits its rating and language, with <code>{'{author}'}</code>, <code>{'{business}'}</code> and <code>{'{product}'}</code> filled in; nothing is posted without a person. At most {max}.
      </p>
      <p class="reply-done" role="status">
        {status}
      </p>
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!list && !error && <Loading what="templates" />}
      {list && list.length === 0 && <p class="muted">No templates yet.</p>}
      {list && list.length > 0 && (
        <ul class="template-list" aria-label="Templates">
          {list.map((t) => (
            <li key={t.id} class="template-item">
              <p>
                <strong>{t.name}</strong> <span class="muted">· {t.language.toUpperCase()} · {t.ratings.join(', ')} {t.ratings.length === 1 && t.ratings[0] === 1 ? 'star' : 'stars'}</span>
              </p>
              <p class="template-text" dir="auto">
                {t.text}
              </p>
              {staff &&
                (removing?.id === t.id ? (
                  <div class="notice notice-warning reply-confirm" role="group" aria-labelledby={`tpl-remove-${t.id}`}>
                    <p id={`tpl-remove-${t.id}`}>Remove the template “{t.name}”?</p>
                    <div class="dialog-actions">
                      <button type="button" class="button secondary small" onClick={() => setRemoving(null)}>
                        Keep it
                      </button>
                      <button ref={removeButton} type="button" class="button danger small" disabled={busy} onClick={() => void remove(t)}>
                        Remove
                      </button>
                    </div>
                  </div>
                ) : (
                  <div class="dialog-actions">
                    <button
                      type="button"
                      class="button secondary small"
                      aria-label={`Edit ${t.name}`}
                      onClick={() => {
                        setEditing(t.id);
                        setDraft({ name: t.name, language: t.language, ratings: t.ratings, text: t.text });
                        setFields({});
                        nameField.current?.focus();
                      }}
                    >
                      Edit
                    </button>
                    <button type="button" class="button danger-outline small" aria-label={`Remove ${t.name}`} onClick={() => setRemoving(t)}>
                      Remove
                    </button>
                  </div>
                ))}
            </li>
          ))}
        </ul>
      )}
      {staff && (
        <form class="template-form" onSubmit={save} aria-labelledby="tpl-form-title" noValidate>
          <h3 id="tpl-form-title">{editing ? `Edit “${list?.find((t) => t.id === editing)?.name ?? ''}”` : 'Add a template'}</h3>
          <div class="field-row">
            <div class="field">
              <label for="tpl-name">Name</label>
              <input ref={nameField} id="tpl-name" value={draft.name} maxLength={80} aria-invalid={fields.name ? 'true' : undefined} aria-describedby={described('name')} onInput={(e) => setDraft({ ...draft, name: e.currentTarget.value })} />
              {problem('name')}
            </div>
            <div class="field">
              <label for="tpl-language">Language</label>
              <input id="tpl-language" value={draft.language} maxLength={2} autoComplete="off" spellcheck={false} aria-invalid={fields.language ? 'true' : undefined} aria-describedby={described('language', 'tpl-language-hint')} onInput={(e) => setDraft({ ...draft, language: e.currentTarget.value })} />
              <p class="hint" id="tpl-language-hint">
                Two-letter code: en, de, fr…
              </p>
              {problem('language')}
            </div>
          </div>
          <fieldset class="template-ratings" aria-describedby={described('ratings')}>
            <legend>Suits reviews of</legend>
            {[1, 2, 3, 4, 5].map((n) => (
              <label key={n} class="choice-inline">
                <input type="checkbox" checked={draft.ratings.includes(n)} onChange={() => toggle(n)} />
                {n} {n === 1 ? 'star' : 'stars'}
              </label>
            ))}
          </fieldset>
          {problem('ratings')}
          <div class="field">
            <label for="tpl-text">Text</label>
            <textarea id="tpl-text" class="reply-text" rows={4} value={draft.text} dir="auto" aria-invalid={fields.text ? 'true' : undefined} aria-describedby={described('text', 'tpl-text-hint')} onInput={(e) => setDraft({ ...draft, text: e.currentTarget.value })} />
            <p class="hint" id="tpl-text-hint">
              {'{author}'}: the reviewer's name; {'{business}'}: your organization's; {'{product}'}: the reviewed product's (else your organization's).
            </p>
            {problem('text')}
          </div>
          <div class="dialog-actions">
            {editing && (
              <button
                type="button"
                class="button secondary"
                onClick={() => {
                  setEditing(null);
                  setDraft(EMPTY);
                  setFields({});
                }}
              >
                Cancel edit
              </button>
            )}
            <button type="submit" class="button primary" disabled={busy}>
              {editing ? 'Save template' : 'Add template'}
            </button>
          </div>
        </form>
      )}
      {list && <AutoReplySection staff={staff} templates={list} />}
      <div class="dialog-actions">
        <button type="button" class="button secondary" onClick={props.onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
