/**
 * The widget builder (CONTRACT §7): the form beside (on a phone, above) the
 * live preview, Save (Owner, Admin), Copy snippet, and the search results
 * check. A Member sees the same page read-only. `id` null: a new widget.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, DashboardError, type SessionInfo, type WidgetList, type WidgetRecord } from '../../api.ts';
import { Loading, Notice, PageHeader } from '../../components/page.tsx';
import { formatDateTime } from '../../format.ts';
import { navigate, onLinkClick, PATHS } from '../../router.ts';
import { bodyOf, draftOf, FIELD_IDS, fieldErrors, NEW_DRAFT, previewBodyOf, type Draft } from './draft.ts';
import { Findings } from './findings.tsx';
import { WidgetForm } from './form.tsx';
import { Preview, type PreviewState } from './preview.tsx';
import { SnippetField } from './snippet-field.tsx';
import { attribute, draftProblems, livePreviewProblems } from './validate.ts';

export function WidgetBuilderPage(props: { id: string | null; session: SessionInfo }) {
  const staff = props.session.user!.role !== 'member';
  const [saved, setSaved] = useState<WidgetRecord | null>(null);
  const [draft, setDraft] = useState<Draft | null>(props.id ? null : NEW_DRAFT);
  // Below 1100 px the form and the preview take turns (the form alone is ~2,600 px tall).
  const [view, setView] = useState<'settings' | 'preview'>('settings');
  const show = (next: 'settings' | 'preview') => {
    setView(next);
    // Switched from deep in the form: bring the top of what is now shown under the sticky switch.
    requestAnimationFrame(() => {
      const builder = document.querySelector('.builder');
      if (builder && builder.getBoundingClientRect().top < 0) builder.scrollIntoView();
    });
  };
  const [platforms, setPlatforms] = useState<WidgetList['platforms']>([]);
  const [products, setProducts] = useState<NonNullable<WidgetList['products']>>([]);
  const [sources, setSources] = useState<NonNullable<WidgetList['sources']>>([]);
  const [loadError, setLoadError] = useState('');
  const [preview, setPreview] = useState<PreviewState>({ fields: {}, findings: null, error: '' });
  const [saveErrors, setSaveErrors] = useState<Record<string, string>>({});
  const [saveError, setSaveError] = useState('');
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const summary = useRef<HTMLDivElement>(null);

  const fail = (err: unknown) => setLoadError(err instanceof DashboardError ? err.message : 'Could not load the widget.');
  useEffect(() => {
    call<WidgetList>('GET', '/widgets').then((r) => {
      setPlatforms(r.platforms);
      setProducts(r.products ?? []);
      setSources(r.sources ?? []);
    }, fail);
  }, []);
  // The widget itself, unless this page just created it (its path then changes to the new id): a second
  // read arriving after the first edits would put the saved values back over them.
  const savedId = useRef<string | null>(null);
  savedId.current = saved?.id ?? null;
  useEffect(() => {
    if (!props.id || savedId.current === props.id) return;
    call<WidgetRecord>('GET', `/widgets/${encodeURIComponent(props.id)}`).then((w) => {
      setSaved(w);
      setDraft(draftOf(w));
    }, fail);
  }, [props.id]);

  const title = props.id ? (saved ? `Widget “${saved.name}”` : 'Widget') : 'Create widget';
  if (loadError) {
    return (
      <>
        <PageHeader title={title} />
        <Notice tone="error" role="alert">
          {loadError}
        </Notice>
      </>
    );
  }
  if (!draft) return <Loading what="the widget" />;

  const body = bodyOf(draft);
  const dirty = !saved || JSON.stringify(body) !== JSON.stringify(bodyOf(draftOf(saved)));
  // Every change is checked here (validate.ts) and by the preview's request; a failed save shows its own answer until the next change.
  const live = livePreviewProblems(draft);
  const errors = fieldErrors({ ...preview.fields, ...live, ...saveErrors });

  const change = (patch: Partial<Draft>) => {
    setDraft({ ...draft, ...patch });
    setSaveErrors({});
    setSaveError('');
    setStatus('');
  };

  /** The first field with a problem, in the form's order, focused (the settings shown first below 1100 px). */
  const focusFirst = (fields: string[]) => {
    setView('settings');
    setTimeout(() => {
      const controls = fields.map((f) => document.getElementById(FIELD_IDS[f] ?? 'w-name')).filter((c): c is HTMLElement => c !== null);
      controls.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
      if (controls[0]) controls[0].focus();
      else summary.current?.focus();
    }, 0);
  };

  const save = async (event: Event) => {
    event.preventDefault();
    // Known to be refused: said at once, under each field, and nothing is sent.
    const problems = draftProblems(draft);
    if (Object.keys(problems).length > 0) {
      setSaveErrors(problems);
      setSaveError('The widget was not saved: fix the fields below.');
      setStatus('');
      focusFirst(Object.keys(problems));
      return;
    }
    setBusy(true);
    setStatus('');
    try {
      const w = saved ? await call<WidgetRecord>('PATCH', `/widgets/${encodeURIComponent(saved.id)}`, body) : await call<WidgetRecord>('POST', '/widgets', body);
      setSaved(w);
      setDraft(draftOf(w));
      setSaveErrors({});
      setSaveError('');
      setStatus(`Saved at ${formatDateTime(w.updatedAt)}.`);
      if (!saved) navigate(`${PATHS.widgets}/${w.id}`, true);
    } catch (err) {
      const fields = err instanceof DashboardError && err.status === 400 ? attribute(err.details, draft) : {};
      setSaveErrors(fields);
      setSaveError(err instanceof DashboardError ? (Object.keys(fields).length > 0 ? 'The widget was not saved: fix the fields below.' : err.message) : 'Something went wrong. Try again.');
      // An error summary with links to the fields, announced; the first field with a problem focused.
      if (Object.keys(fields).length > 0) focusFirst(Object.keys(fields));
      else setTimeout(() => summary.current?.focus(), 0);
    } finally {
      setBusy(false);
    }
  };

  const errorList = Object.entries(errors);
  return (
    <>
      <PageHeader
        title={title}
        lead={
          <>
            <a href={PATHS.widgets} onClick={(e) => onLinkClick(e as unknown as MouseEvent, PATHS.widgets)}>
              All widgets
            </a>
            {saved && (
              <>
                {' · '}id <span class="mono">{saved.id}</span>
              </>
            )}
          </>
        }
      />
      {!staff && (
        <Notice tone="info" role="status">
          You can look at this widget and copy its snippet. Changing widgets needs the <strong>Owner</strong> or <strong>Admin</strong> role.
        </Notice>
      )}
      <div class="builder-switch" role="group" aria-label="Show">
        <button type="button" class="button secondary small" aria-pressed={view === 'settings'} onClick={() => show('settings')}>
          Settings
        </button>
        <button type="button" class="button secondary small" aria-pressed={view === 'preview'} onClick={() => show('preview')}>
          Preview and snippet
        </button>
      </div>
      <div class="builder" data-view={view}>
        <form class="card builder-form" onSubmit={save} noValidate aria-label={staff ? 'Widget settings' : 'Widget settings (read-only)'}>
          {saveError && (
            <div class="notice notice-error" role="alert" tabIndex={-1} ref={summary}>
              <p>{saveError}</p>
              {errorList.length > 0 && (
                <ul class="plain-list">
                  {errorList.map(([field, message]) => (
                    <li key={field}>
                      <a href={`#${FIELD_IDS[field] ?? 'w-name'}`}>{message}</a>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
          <fieldset class="plain" disabled={!staff}>
            <legend class="sr-only">Settings</legend>
            <WidgetForm draft={draft} errors={errors} platforms={platforms} products={products} sources={sources} findings={preview.findings} onChange={change} />
          </fieldset>
          {staff && (
            <div class="form-actions">
              <button type="submit" class="button primary" disabled={busy}>
                Save
              </button>
              <p class="hint" role="status">
                {status || (dirty ? (saved ? 'Unsaved changes.' : 'Not saved yet.') : '')}
              </p>
            </div>
          )}
        </form>
        <div class="builder-side">
          <Preview body={previewBodyOf(draft)} problems={live} onState={setPreview} />
          {preview.error && (
            <Notice tone="error" role="alert">
              {preview.error}
            </Notice>
          )}
          <section class="card snippet" aria-labelledby="snippet-title">
            <h2 id="snippet-title">Embed snippet</h2>
            {saved ? (
              <>
                <SnippetField snippet={saved.snippet} />
                {dirty && <p class="hint">The snippet loads the saved widget: save your changes to publish them. The snippet itself stays the same unless the layout’s height changes.</p>}
              </>
            ) : (
              <p class="hint">Save the widget to get the snippet to paste into your pages.</p>
            )}
          </section>
          <Findings findings={preview.findings} />
        </div>
      </div>
    </>
  );
}
