/**
 * `Invite customers` on the Collect page (CONTRACT §14; Owner, Admin): a CSV
 * of customers uploaded through the shared import panel (the Reviews and
 * Products pages' own: file field, progress bar, the running or last upload
 * after a reload), with the columns and a sample line explained, and the
 * answer in an inviter's words: invited, already invited, skipped by the
 * rules and rejected, each line by number.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type ImportRun, type InvitationImportSummary } from '../../api.ts';
import { ImportPanel, LineList, type ImportKind } from '../../components/import-panel.tsx';
import { Notice } from '../../components/page.tsx';
import { formatNumber } from '../../format.ts';

/** The largest file when the server could not be asked (its own limit, 512 MiB, decides anyway). */
const FALLBACK_MAX_BYTES = 512 * 1024 * 1024;

export const SAMPLE_CSV = 'email,name,productId,orderRef,locale,sendAt\nana@example.com,"Silva, Ana",MUG-1,ORD-1001,pt,2026-12-01T09:00:00Z';

/** Each column of the file, as a shop owner reads it. */
const COLUMNS: { name: string; what: string }[] = [
  { name: 'email', what: 'Required. The customer’s email address.' },
  { name: 'name', what: 'Optional. The customer’s name, for the greeting.' },
  { name: 'productId', what: 'Optional. The id of a product in your catalog: the invitation asks about that product; empty asks about your business.' },
  { name: 'orderRef', what: 'Optional. Your order number: a line with an orderRef and email already uploaded is never invited twice.' },
  { name: 'locale', what: 'Optional. The language of the invitation, such as en, de, fr or pt-BR; empty uses your organization’s.' },
  { name: 'sendAt', what: 'Optional. When to send it, a date and time with its time zone (2026-12-01T09:00:00Z); empty sends it after your usual delay.' },
];

/** Why the rules skipped a line, in words. */
const SKIP_WORDS: Record<string, string> = {
  recently_invited: 'this address was invited less than 30 days ago, so it is not asked again',
  unsubscribed: 'this address asked for no more invitations from you',
};

const n = formatNumber;
const lines = (count: number): string => `${n(count)} ${count === 1 ? 'line' : 'lines'}`;
const sentence = (reason: string): string => `${reason.charAt(0).toUpperCase()}${reason.slice(1)}${/[.…]$/.test(reason) ? '' : '.'}`;

/** The upload's answer: a headline, then the skipped and the rejected lines by number. */
function InvitationResult({ summary }: { summary: InvitationImportSummary }) {
  const file = summary.fileError;
  const rejected = file ? summary.rejected.filter((r) => r.line !== file.line || r.reason !== file.reason) : summary.rejected;
  const invited = (
    <>
      <strong>{n(summary.created)}</strong> {summary.created === 1 ? 'customer' : 'customers'} invited
    </>
  );
  const others = [
    summary.existing > 0 && `${lines(summary.existing)} already invited (same order and email)`,
    summary.skippedTotal > 0 && `${lines(summary.skippedTotal)} skipped`,
    summary.rejectedTotal > 0 && `${lines(summary.rejectedTotal)} rejected`,
  ].filter((x): x is string => typeof x === 'string');
  let headline;
  if (file) {
    headline = (
      <Notice tone="error">
        {summary.created === 0 ? 'Nobody was invited: ' : <>Upload stopped after {invited}: </>}
        the file could not be read past line {n(file.line)}. {sentence(file.reason)}
      </Notice>
    );
  } else if (summary.created === 0 && summary.existing === 0 && summary.skippedTotal === 0) {
    headline = <Notice tone={summary.rejectedTotal > 0 ? 'error' : 'warning'}>{summary.rejectedTotal > 0 ? `Nobody was invited: ${summary.rejectedTotal === 1 ? 'the only line was' : `all ${lines(summary.rejectedTotal)} were`} rejected.` : 'Nobody was invited: the file holds no customers.'}</Notice>;
  } else {
    headline = (
      <Notice tone={summary.rejectedTotal > 0 ? 'warning' : 'success'}>
        Upload finished: {invited}
        {others.length > 0 ? `; ${others.join(', ')}.` : ', nothing rejected.'}
      </Notice>
    );
  }
  return (
    <div class="section" role="status">
      {headline}
      {summary.skipped.length > 0 && <LineList label="Skipped lines" lines={summary.skipped.map((s) => ({ line: s.line, reason: SKIP_WORDS[s.reason] ?? s.reason }))} listed={summary.skipped.length} total={summary.skippedTotal} />}
      {rejected.length > 0 && <LineList label="Rejected lines" lines={rejected} listed={summary.rejected.length} total={summary.rejectedTotal} />}
    </div>
  );
}

/** A run's counts (GET …/invitations/import): `imported` are the invitations created, `updated` the lines invited before. */
function runCounts(run: ImportRun) {
  return (
    <>
      <strong>{n(run.imported)}</strong> {run.imported === 1 ? 'customer' : 'customers'} invited ({n(run.updated)} already invited, {n(run.skippedTotal ?? 0)} skipped)
    </>
  );
}

const INVITATION_IMPORT: ImportKind<InvitationImportSummary> = {
  path: '/invitations/import',
  title: 'Invite customers',
  one: 'invitation',
  many: 'invitations',
  fileLabel: 'Customer file (CSV)',
  formats: ['csv'],
  action: 'Upload and invite',
  hint: (max) => (
    <>
      Upload a CSV file of your customers, up to {max}: each line asks one customer for a review. The first line names the columns, in any order. Every customer gets the same invitation,
      whatever you know of their opinion.
    </>
  ),
  result: (summary) => <InvitationResult summary={summary} />,
  runCounts,
  again: 'a line already uploaded with its orderRef is not invited twice, and no address is invited twice within 30 days',
};

/** The columns and a sample line, explained (shown above the file field). */
function FileHelp() {
  return (
    <div class="csv-help">
      <dl class="csv-columns">
        {COLUMNS.map((c) => (
          <div key={c.name}>
            <dt class="mono">{c.name}</dt>
            <dd>{c.what}</dd>
          </div>
        ))}
      </dl>
      <p class="csv-sample-title" id="csv-sample-title">
        A file with one customer:
      </p>
      <pre class="csv-sample" tabIndex={0} role="region" aria-labelledby="csv-sample-title">
        {SAMPLE_CSV}
      </pre>
      <p class="hint">
        Ana Silva is asked about the product MUG-1 of her order ORD-1001, in Portuguese, on 1 December 2026 at 09:00 UTC. Her name is in quotes because it holds a comma. A line that
        cannot be used is listed with its number and the reason; the other lines are still invited.
      </p>
    </div>
  );
}

/** The Collect page's upload of customers to invite (render it for Owner and Admin only: the routes refuse a Member). */
export function InvitationUpload(props: { onImported?: () => void }) {
  const [maxBytes, setMaxBytes] = useState<number | null>(null);
  useEffect(() => {
    let stopped = false;
    call<{ maxImportBytes: number }>('GET', '/invitations/import').then(
      (answer) => !stopped && setMaxBytes(answer.maxImportBytes),
      () => !stopped && setMaxBytes(FALLBACK_MAX_BYTES),
    );
    return () => {
      stopped = true;
    };
  }, []);
  if (maxBytes === null) return null;
  return (
    <ImportPanel kind={INVITATION_IMPORT} maxBytes={maxBytes} onImported={() => props.onImported?.()}>
      <FileHelp />
    </ImportPanel>
  );
}
