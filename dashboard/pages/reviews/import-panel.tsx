/**
 * `Import reviews` (Owner, Admin): a file (CSV, NDJSON or a JSON array) sent as
 * the request body and streamed into the import on the server; a progress bar
 * while it goes, then the summary with each rejected line and its reason.
 */
import { useRef, useState } from 'preact/hooks';
import { DashboardError, upload, type ImportSummary } from '../../api.ts';
import { Notice } from '../../components/page.tsx';
import { formatNumber } from '../../format.ts';

const FORMATS: Record<string, 'csv' | 'ndjson' | 'json'> = { csv: 'csv', ndjson: 'ndjson', jsonl: 'ndjson', json: 'json' };

/** The import format a file name implies (the same rule as the CLI's), or null. */
export function formatOf(name: string): 'csv' | 'ndjson' | 'json' | null {
  return FORMATS[/\.([a-z]+)$/i.exec(name.trim())?.[1]?.toLowerCase() ?? ''] ?? null;
}

/** 512 MB, 3.4 MB, 380 KB: the size a person reads (1 MB = 1,048,576 bytes, as file managers mostly say). */
const mb = (bytes: number): string => {
  const one = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
  return bytes < 1024 * 1024 ? `${one.format(Math.ceil(bytes / 1024))} KB` : `${one.format(bytes / 1024 / 1024)} MB`;
};

export function ImportPanel(props: { maxBytes: number; onImported: () => void }) {
  const file = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [summary, setSummary] = useState<ImportSummary | null>(null);
  const [error, setError] = useState('');

  const submit = async (event: Event) => {
    event.preventDefault();
    const chosen = file.current?.files?.[0];
    setError('');
    setSummary(null);
    if (!chosen) return setError('Choose a file to import.');
    const format = formatOf(chosen.name);
    if (!format) return setError('The file name must end in .csv, .ndjson, .jsonl or .json, so that the service knows how to read it.');
    if (chosen.size > props.maxBytes) return setError(`This file is ${mb(chosen.size)}; the dashboard takes files up to ${mb(props.maxBytes)}. Split it, or ask an operator to use the command line import.`);
    setProgress({ sent: 0, total: chosen.size });
    try {
      const result = await upload<ImportSummary>(`/reviews/import?format=${format}`, chosen, (sent, total) => setProgress({ sent, total }));
      setSummary(result);
      props.onImported();
    } catch (err) {
      setError(err instanceof DashboardError ? err.message : 'The import failed. Try again.');
    } finally {
      setProgress(null);
    }
  };

  const percent = progress && progress.total > 0 ? Math.floor((progress.sent / progress.total) * 100) : 0;
  return (
    <section class="card import" id="import-panel" aria-labelledby="import-title">
      <h2 id="import-title">Import reviews</h2>
      <p class="hint" id="import-file-hint">
        A CSV file with a header row, NDJSON (one review a line) or a JSON array, up to {mb(props.maxBytes)}. Fields: platform, externalId, authorName, rating, content, date, and optionally
        authorAvatar, url, language, isVerified. Importing a review again updates it (never a duplicate), and a hidden review stays hidden.
      </p>
      <form onSubmit={submit} class="import-form">
        <div class="field">
          <label for="import-file">Review file</label>
          <input id="import-file" ref={file} type="file" accept=".csv,.ndjson,.jsonl,.json,text/csv,application/json" aria-describedby="import-file-hint" disabled={progress !== null} />
        </div>
        <button type="submit" class="button primary" disabled={progress !== null}>
          Upload and import
        </button>
      </form>
      {progress && (
        <div class="field">
          <label for="import-progress">Import progress</label>
          <progress id="import-progress" max={100} value={percent} aria-describedby="import-progress-text">
            {percent}%
          </progress>
          <p class="hint" id="import-progress-text">
            {progress.sent < progress.total ? `${mb(progress.sent)} of ${mb(progress.total)} read and imported (${percent}%)…` : 'All sent; finishing the last reviews…'}
          </p>
        </div>
      )}
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {summary && <ImportResult summary={summary} />}
    </section>
  );
}

function ImportResult({ summary }: { summary: ImportSummary }) {
  const n = formatNumber;
  return (
    <div class="section" role="status">
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
      {summary.rejected.length > 0 && (
        <div class="rejected" role="region" aria-label="Rejected lines" tabIndex={0}>
          <ul class="plain-list">
            {summary.rejected.map((r) => (
              <li key={r.line}>
                <strong>Line {n(r.line)}:</strong> {r.reason}
              </li>
            ))}
          </ul>
          {summary.rejectedTotal > summary.rejected.length && (
            <p class="hint">
              The first {n(summary.rejected.length)} of {n(summary.rejectedTotal)} rejected lines are listed.
            </p>
          )}
        </div>
      )}
    </div>
  );
}
