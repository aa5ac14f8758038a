/**
 * Reviews: the organization's reviews with the API's filters and paging;
 * `Import reviews` (Owner, Admin) uploads a file with a progress bar; each
 * review can be hidden from widgets with a reason and shown again (Owner,
 * Admin). Hidden reviews still count in statistics; widgets disclose them.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type ReviewItem, type ReviewList, type SessionInfo } from '../../api.ts';
import { Loading, Notice, PageHeader, TableWrap } from '../../components/page.tsx';
import { formatDate, formatNumber } from '../../format.ts';
import { FilterForm, NO_FILTERS, platformName, queryOf, type Filters } from './filters.tsx';
import { HideDialog } from './hide-dialog.tsx';
import { ReviewDialog } from './review-dialog.tsx';
import { lazyPage } from '../../components/lazy.tsx';
import { ImportPanel, type ImportKind } from '../../components/import-panel.tsx';
import { reasonLabel } from './reasons.ts';
import { onLinkClick, PATHS } from '../../router.ts';

// The reply composer and the templates dialog load when first opened (their own chunks).
const ReplyComposer = lazyPage('the reply composer', () => import('./reply-composer.tsx').then((m) => m.ReplyComposer));
const TemplatesDialog = lazyPage('the reply templates', () => import('./templates-dialog.tsx').then((m) => m.TemplatesDialog));

/** `Import reviews`: the shared import panel with the review file's words. */
const REVIEW_IMPORT: ImportKind = {
  path: '/reviews/import',
  title: 'Import reviews',
  one: 'review',
  many: 'reviews',
  fileLabel: 'Review file',
  formats: ['csv', 'ndjson', 'json'],
  hint: (max) => (
    <>
      A CSV file with a header row, NDJSON (one review a line) or a JSON array, up to {max}. Fields: platform, externalId, authorName, rating, content, date, and optionally authorAvatar, url,
      language, isVerified, productId, replyText and replyDate (your reply and when you wrote it). Importing a review again updates it (never a duplicate), and a hidden review stays hidden.
    </>
  ),
};

export function ReviewsPage(props: { session: SessionInfo }) {
  const staff = props.session.user!.role !== 'member';
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [offset, setOffset] = useState(0);
  const [list, setList] = useState<ReviewList | null>(null);
  const [error, setError] = useState<DashboardError | null>(null);
  const [importing, setImporting] = useState(false);
  const [hiding, setHiding] = useState<ReviewItem | null>(null);
  const [reading, setReading] = useState<ReviewItem | null>(null);
  const [replying, setReplying] = useState<ReviewItem | null>(null);
  const [templates, setTemplates] = useState(false);
  const [status, setStatus] = useState('');
  // Reviews written on the review page that wait for a decision (the Collect page's Pending view): a link when there are any.
  const [waiting, setWaiting] = useState(0);
  useEffect(() => {
    call<{ data: unknown[] }>('GET', '/collect/pending').then(
      (res) => setWaiting(res.data.length),
      () => setWaiting(0),
    );
  }, []);

  const load = () => {
    const query = queryOf(filters, offset);
    return call<ReviewList>('GET', `/reviews${query ? `?${query}` : ''}`).then(
      (res) => {
        setList(res);
        setError(null);
      },
      (err: unknown) => setError(err instanceof DashboardError ? err : new DashboardError(0, 'unknown', 'Could not load the reviews.')),
    );
  };
  useEffect(() => {
    void load();
  }, [filters, offset]);

  const show = async (review: ReviewItem) => {
    try {
      await call('POST', `/reviews/${encodeURIComponent(review.id)}/show`);
      setStatus(`The review by ${review.authorName} is shown in widgets again.`);
      await load();
    } catch (err) {
      setError(err instanceof DashboardError ? err : new DashboardError(0, 'unknown', 'Could not show the review.'));
    }
  };

  const page = list?.pagination;
  const lead = list
    ? `${formatNumber(page!.total)} ${page!.total === 1 ? 'review matches' : 'reviews match'}${list.hiddenTotal > 0 ? ` · ${formatNumber(list.hiddenTotal)} hidden from widgets (still counted in your statistics)` : ''}.`
    : 'Your reviews from every platform.';
  return (
    <>
      <PageHeader
        title="Reviews"
        lead={lead}
        actions={
          <>
            <button type="button" class="button secondary" aria-haspopup="dialog" onClick={() => setTemplates(true)}>
              Reply templates
            </button>
            {staff && (
              <button type="button" class="button primary" aria-expanded={importing} aria-controls="import-panel" onClick={() => setImporting(!importing)}>
                Import reviews
              </button>
            )}
          </>
        }
      />
      {waiting > 0 && (
        <Notice tone="info">
          {formatNumber(waiting)} {waiting === 1 ? 'review from your review page waits' : 'reviews from your review page wait'} for a decision:{' '}
          <a href={PATHS.collect} onClick={(e) => onLinkClick(e as unknown as MouseEvent, PATHS.collect)}>
            Pending reviews on the Collect page
          </a>
          .
        </Notice>
      )}
      {importing && list && <ImportPanel kind={REVIEW_IMPORT} maxBytes={list.maxImportBytes} onImported={() => void load()} />}
      <FilterForm
        value={filters}
        fields={error?.fields ?? {}}
        onApply={(next) => {
          setOffset(0);
          setFilters(next);
        }}
      />
      <p class="sr-only" role="status">
        {status}
      </p>
      {error && (
        <Notice tone="error" role="alert">
          {error.message}
        </Notice>
      )}
      {!list && !error && <Loading what="reviews" />}
      {list && list.data.length === 0 && <p class="empty card">{page!.total === 0 && offset === 0 ? (filters.notReplied === 'true' ? 'No review waits for a reply: every matching review on Google, Trustpilot and your review page has one.' : 'No reviews match these filters.') : 'No reviews on this page.'}</p>}
      {list && list.data.length > 0 && (
        <TableWrap label="Reviews">
          {/* Below 720 px each row is drawn as a card (styles.css); the explicit roles keep it a table for assistive technology. */}
          <table class="table reviews" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">Date</th>
                <th scope="col" role="columnheader">Platform</th>
                <th scope="col" role="columnheader">Author</th>
                <th scope="col" role="columnheader">Rating</th>
                <th scope="col" role="columnheader">Review</th>
                <th scope="col" role="columnheader">In widgets</th>
                <th scope="col" role="columnheader">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {list.data.map((r) => (
                <tr key={r.id} role="row" class={r.hidden ? 'is-hidden' : undefined}>
                  <td role="cell" class="nowrap r-date">{formatDate(r.date)}</td>
                  <td role="cell" class="r-platform">{platformName(r.platform)}</td>
                  <td role="cell" class="r-author" id={`author-${r.id}`}>
                    {r.authorName}
                  </td>
                  <td role="cell" class="nowrap r-rating">
                    {r.rating === null ? 'No stars' : `${r.rating} / 5`}
                  </td>
                  <td role="cell" class="r-text">
                    <span class="text-clamp" lang={r.language || undefined} dir="auto">
                      {r.content}
                    </span>
                    {r.reply && (
                      <span class="reply-line text-clamp" dir="auto">
                        <strong>Your reply, {formatDate(r.reply.date)}:</strong> {r.reply.text}
                      </span>
                    )}
                  </td>
                  <td role="cell" class="r-status">
                    {r.hidden ? (
                      <span class="badge badge-revoked" title={`Hidden by ${r.hidden.hiddenBy} on ${formatDate(r.hidden.hiddenAt)}`}>
                        Hidden: {reasonLabel(r.hidden.reason)}
                      </span>
                    ) : (
                      <span class="badge badge-active">Shown</span>
                    )}
                  </td>
                  <td role="cell" class="actions">
                    <button type="button" class="button secondary small" aria-haspopup="dialog" aria-describedby={`author-${r.id}`} onClick={() => setReading(r)}>
                      Read
                    </button>
                    <button type="button" class="button secondary small" aria-haspopup="dialog" aria-describedby={`author-${r.id}`} onClick={() => setReplying(r)}>
                      Reply
                    </button>
                    {staff &&
                      (r.hidden ? (
                        <button type="button" class="button secondary small" aria-describedby={`author-${r.id}`} onClick={() => void show(r)}>
                          Show
                        </button>
                      ) : (
                        <button type="button" class="button danger-outline small" aria-describedby={`author-${r.id}`} onClick={() => setHiding(r)}>
                          Hide
                        </button>
                      ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {page && page.total > 0 && (
        <nav class="pager" aria-label="Pages of reviews">
          <button type="button" class="button secondary" disabled={page.offset === 0} onClick={() => setOffset(Math.max(0, page.offset - page.limit))}>
            Previous
          </button>
          <span class="muted">
            {formatNumber(Math.min(page.offset + 1, page.total))}–{formatNumber(Math.min(page.offset + page.limit, page.total))} of {formatNumber(page.total)}
          </span>
          <button type="button" class="button secondary" disabled={!page.hasMore} onClick={() => setOffset(page.offset + page.limit)}>
            Next
          </button>
        </nav>
      )}
      {reading && (
        <ReviewDialog
          review={reading}
          onClose={() => setReading(null)}
          onReply={() => {
            setReading(null);
            setReplying(reading);
          }}
        />
      )}
      {templates && <TemplatesDialog session={props.session} onClose={() => setTemplates(false)} />}
      {replying && <ReplyComposer review={replying} session={props.session} onClose={() => setReplying(null)} onChanged={() => void load()} />}
      {hiding && (
        <HideDialog
          review={hiding}
          onClose={() => setHiding(null)}
          onHidden={(review) => {
            setHiding(null);
            setStatus(`The review by ${review.authorName} is hidden from widgets.`);
            void load();
          }}
        />
      )}
    </>
  );
}
