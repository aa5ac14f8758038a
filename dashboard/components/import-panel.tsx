/**
 * A dashboard import (Owner, Admin): `Import reviews` on the Reviews page,
 * `Import products` on the Products page, `Invite customers` on the Collect
 * page (pages/collect/invitation-upload.tsx, with its own summary words). A file sent as the request body
 * and streamed into the import on the server; a progress bar while it goes,
 * then the summary with each rejected line and its reason. On opening, and
 * when the server refuses a second upload, it asks what the organization's
 * running or last upload of this kind has kept (GET …/import): a page
 * reloaded mid-upload shows that upload still going, or what it kept.
 */
import type { ComponentChildren, VNode } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, DashboardError, upload, type ImportRun, type ImportSummary } from '../api.ts';
import { Notice } from './page.tsx';
import { formatDateTime, formatNumber } from '../format.ts';

export type ImportFormat = 'csv' | 'ndjson' | 'json';

/** What one kind of import is: its words, where it uploads, the formats it reads. */
export interface ImportKind<S = ImportSummary> {
  /** `/reviews/import`, `/products/import`, `/invitations/import` (GET for the last run, POST for the file). */
  path: string;
  /** "Import reviews". */
  title: string;
  /** "review" / "reviews": in the progress and the summary. */
  one: string;
  many: string;
  /** "Review file". */
  fileLabel: string;
  /** The formats taken (of csv, ndjson, json). */
  formats: readonly ImportFormat[];
  /** What the file holds: the hint under the file field. */
  hint: (maxSize: string) => ComponentChildren;
  /** The submit button (default "Upload and import"). */
  action?: string;
  /** The answer in words (default: new, updated and rejected lines, as reviews and products answer). */
  result?: (summary: S) => VNode;
  /** A run's counts in words (default: "N reviews (x new, y updated)"). */
  runCounts?: (run: ImportRun) => ComponentChildren;
  /** Why uploading the file again is safe (default: importing again updates, never duplicates). */
  again?: string;
}

/** How often a running upload's progress is asked for. */
const RUN_POLL_MS = 2000;

const FORMATS: Record<string, ImportFormat> = { csv: 'csv', ndjson: 'ndjson', jsonl: 'ndjson', json: 'json' };

/** The import format a file name implies (the same rule as the CLI's), or null. */
export function formatOf(name: string): ImportFormat | null {
  return FORMATS[/\.([a-z]+)$/i.exec(name.trim())?.[1]?.toLowerCase() ?? ''] ?? null;
}

/** The file name endings of these formats: ".csv, .ndjson or .jsonl". */
const endings = (formats: readonly ImportFormat[]): string[] => Object.keys(FORMATS).filter((ext) => formats.includes(FORMATS[ext]!)).map((ext) => `.${ext}`);
const orList = (items: string[]): string => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`);

/** 512 MB, 3.4 MB, 380 KB: the size a person reads (1 MB = 1,048,576 bytes, as file managers mostly say). */
const mb = (bytes: number): string => {
  const one = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
  return bytes < 1024 * 1024 ? `${one.format(Math.ceil(bytes / 1024))} KB` : `${one.format(bytes / 1024 / 1024)} MB`;
};

/** `children`: shown under the hint, before the file field (what the file holds, explained). */
export function ImportPanel<S = ImportSummary>(props: { kind: ImportKind<S>; maxBytes: number; onImported: () => void; children?: ComponentChildren }) {
  const kind = props.kind;
  const file = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [summary, setSummary] = useState<S | null>(null);
  const [error, setError] = useState('');
  const [run, setRun] = useState<ImportRun | null>(null);
  /** Asking the server about the running or last upload (on opening, after a refusal). */
  const [watching, setWatching] = useState(true);
  /** This person's file was refused because another upload was running. */
  const [refused, setRefused] = useState(false);

  useEffect(() => {
    if (!watching) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const look = async (): Promise<void> => {
      try {
        const { run: now } = await call<{ run: ImportRun | null }>('GET', kind.path);
        if (stopped) return;
        setRun(now);
        if (now?.state === 'running') timer = setTimeout(() => void look(), RUN_POLL_MS);
        else {
          setWatching(false);
          if (now) props.onImported();
        }
      } catch {
        if (!stopped) setWatching(false);
      }
    };
    void look();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [watching]);

  const submit = async (event: Event) => {
    event.preventDefault();
    const chosen = file.current?.files?.[0];
    setError('');
    setSummary(null);
    setRefused(false);
    setRun(null);
    if (!chosen) return setError('Choose a file to import.');
    const format = formatOf(chosen.name);
    if (!format || !kind.formats.includes(format)) return setError(`The file name must end in ${orList(endings(kind.formats))}, so that the service knows how to read it.`);
    if (chosen.size > props.maxBytes) return setError(`This file is ${mb(chosen.size)}; the dashboard takes files up to ${mb(props.maxBytes)}. Split it, or ask an operator to use the command line import.`);
    setProgress({ sent: 0, total: chosen.size });
    try {
      const result = await upload<S>(`${kind.path}?format=${format}`, chosen, (sent, total) => setProgress({ sent, total }));
      setSummary(result);
      props.onImported();
    } catch (err) {
      setError(err instanceof DashboardError ? err.message : 'The import failed. Try again.');
      if (err instanceof DashboardError && err.code === 'import_in_progress') {
        setRefused(true);
        setWatching(true);
      }
    } finally {
      setProgress(null);
    }
  };

  const percent = progress && progress.total > 0 ? Math.floor((progress.sent / progress.total) * 100) : 0;
  return (
    <section class="card import" id="import-panel" aria-labelledby="import-title">
      <h2 id="import-title">{kind.title}</h2>
      <p class="hint" id="import-file-hint">
        {kind.hint(mb(props.maxBytes))}
      </p>
      {props.children}
      <form onSubmit={submit} class="import-form">
        <div class="field">
          <label for="import-file">{kind.fileLabel}</label>
          <input
            id="import-file"
            ref={file}
            type="file"
            accept={[...endings(kind.formats), 'text/csv', ...(kind.formats.includes('json') ? ['application/json'] : [])].join(',')}
            aria-describedby="import-file-hint"
            disabled={progress !== null}
          />
        </div>
        <button type="submit" class="button primary" disabled={progress !== null}>
          {kind.action ?? 'Upload and import'}
        </button>
      </form>
      {progress && (
        <div class="field">
          <label for="import-progress">Import progress</label>
          <progress id="import-progress" max={100} value={percent} aria-describedby="import-progress-text">
            {percent}%
          </progress>
          <p class="hint" id="import-progress-text">
            {progress.sent < progress.total ? `${mb(progress.sent)} of ${mb(progress.total)} read and imported (${percent}%)…` : `All sent; finishing the last ${kind.many}…`}
          </p>
        </div>
      )}
      {error && !(refused && run) && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {run && !progress && !summary && <RunNotice run={run} refused={refused} kind={kind} />}
      {summary && (kind.result ? kind.result(summary) : <ImportResult summary={summary as unknown as ImportSummary} kind={kind} />)}
    </section>
  );
}

/** The running or last upload as the server knows it: still going, or what it kept and how it ended. */
function RunNotice<S>({ run, refused, kind }: { run: ImportRun; refused: boolean; kind: ImportKind<S> }) {
  const n = formatNumber;
  const started = formatDateTime(run.startedAt);
  const kept = run.imported + run.updated;
  const again = kind.again ?? 'importing again updates, never duplicates';
  const counts = kind.runCounts?.(run) ?? (
    <>
      <strong>{n(kept)}</strong> {kept === 1 ? kind.one : kind.many} ({n(run.imported)} new, {n(run.updated)} updated)
    </>
  );
  const yours = refused ? (run.state === 'running' ? ' Your file was not imported: upload it again once this import has ended.' : ' It has ended now: upload your file again.') : '';
  switch (run.state) {
    case 'running':
      return (
        <Notice tone="info" role="status">
          An import started {started} is still running: {counts} kept so far.{yours}
        </Notice>
      );
    case 'interrupted':
      return (
        <Notice tone="warning" role={refused ? 'status' : undefined}>
          The upload started {started} stopped before the whole file arrived (the page was left or the connection lost). It kept {counts}; upload the file again to finish ({again}).{yours}
        </Notice>
      );
    case 'failed':
      return (
        <Notice tone="error" role={refused ? 'status' : undefined}>
          The import started {started} failed on the server after keeping {counts}. Upload the file again ({again}).{yours}
        </Notice>
      );
    default:
      return (
        <Notice tone="info" role={refused ? 'status' : undefined}>
          The last import, started {started}, finished: {counts}
          {run.rejectedTotal > 0 ? `, ${n(run.rejectedTotal)} ${run.rejectedTotal === 1 ? 'line' : 'lines'} rejected` : ''}.{yours}
        </Notice>
      );
  }
}

/** "Import finished: …", or that nothing was imported and why; never "the other lines were kept" when none were. */
function ImportResult<S>({ summary, kind }: { summary: ImportSummary; kind: ImportKind<S> }) {
  const n = formatNumber;
  const kept = summary.imported + summary.updated;
  const lines = (count: number) => `${n(count)} ${count === 1 ? 'line' : 'lines'}`;
  // A file-level problem is said once, in the notice; other rejected lines (before it) are listed below.
  const file = summary.fileError ?? null;
  const listed = file ? summary.rejected.filter((r) => r.line !== file.line || r.reason !== file.reason) : summary.rejected;
  let headline;
  if (file) {
    headline = (
      <Notice tone="error">
        {kept === 0 ? 'Nothing was imported: ' : `Import stopped after ${n(kept)} ${kept === 1 ? kind.one : kind.many} (${n(summary.imported)} new, ${n(summary.updated)} updated): `}
        the file could not be read past line {n(file.line)}. {sentence(file.reason)}
      </Notice>
    );
  } else if (kept === 0 && summary.rejectedTotal > 0) {
    headline = (
      <Notice tone="error">
        Nothing was imported: {summary.rejectedTotal === 1 ? 'the only line was' : `all ${lines(summary.rejectedTotal)} were`} rejected.
      </Notice>
    );
  } else if (kept === 0) {
    headline = <Notice tone="warning">Nothing was imported: the file holds no {kind.many}.</Notice>;
  } else {
    headline = (
      <Notice tone={summary.rejectedTotal > 0 ? 'warning' : 'success'}>
        Import finished: <strong>{n(summary.imported)}</strong> new, <strong>{n(summary.updated)}</strong> updated
        {summary.rejectedTotal > 0 ? (
          <>
            , <strong>{n(summary.rejectedTotal)}</strong> {summary.rejectedTotal === 1 ? 'line' : 'lines'} rejected (the other lines were kept).
          </>
        ) : (
          ', nothing rejected.'
        )}
      </Notice>
    );
  }
  return (
    <div class="section" role="status">
      {headline}
      {(summary.datesWithoutOffset ?? 0) > 0 && (
        <Notice tone="info">
          {n(summary.datesWithoutOffset!)} {summary.datesWithoutOffset === 1 ? 'date had' : 'dates had'} a time but no time zone (such as 2026-11-20 10:00) and{' '}
          {summary.datesWithoutOffset === 1 ? 'was' : 'were'} read as UTC. If they are local times, add the offset (2026-11-20T10:00+01:00) and import the file again.
        </Notice>
      )}
      {listed.length > 0 && <LineList label="Rejected lines" lines={listed} listed={summary.rejected.length} total={summary.rejectedTotal} />}
    </div>
  );
}

/** A reason as a sentence: capital first letter, a full stop. */
const sentence = (reason: string): string => `${reason.charAt(0).toUpperCase()}${reason.slice(1)}${/[.…]$/.test(reason) ? '' : '.'}`;

/**
 * Lines of a file by number, each with its reason (a scrollable region that
 * the keyboard reaches); when the server listed only the first of them, says so.
 */
export function LineList(props: { label: string; lines: { line: number; reason: string }[]; listed: number; total: number }) {
  const n = formatNumber;
  return (
    <div class="rejected" role="region" aria-label={props.label} tabIndex={0}>
      <ul class="plain-list">
        {props.lines.map((r) => (
          <li key={r.line}>
            <strong>Line {n(r.line)}:</strong> {r.reason}
          </li>
        ))}
      </ul>
      {props.total > props.listed && (
        <p class="hint">
          The first {n(props.listed)} of {n(props.total)} {props.label.toLowerCase()} are listed.
        </p>
      )}
    </div>
  );
}
