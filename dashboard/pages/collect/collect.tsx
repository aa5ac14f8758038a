/**
 * Collect (CONTRACT §13, "The Collect page"): the organization's review link
 * with its QR code (shown from the SVG route, downloadable as SVG or PNG),
 * `Replace link` (the old link stops working), one link per product (paged
 * and searchable, from the catalog), the thank-you page's "also share on …"
 * link and the moderation setting; the reviews waiting (Pending) come first
 * after the link, as what asks for a person.
 * Owner and Admin change and decide; a Member reads.
 */
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type CollectInfo, type ModerationMode, type ProductItem, type ProductList, type SessionInfo } from '../../api.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { CopyField } from '../../components/copy-field.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { Loading, Notice, PageHeader } from '../../components/page.tsx';
import { formatNumber } from '../../format.ts';
import { PendingReviews } from './pending.tsx';
import { InvitationUpload } from './invitation-upload.tsx';
import { CollectInvitations } from './invitations.tsx';

const PAGE_SIZE = 20;
const QR = '/dashboard/api/collect/qr';

function CopyButton(props: { value: string; describedBy: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="button secondary small"
      aria-describedby={props.describedBy}
      onClick={() =>
        void navigator.clipboard.writeText(props.value).then(
          () => setCopied(true),
          () => setCopied(false),
        )
      }
    >
      {copied ? 'Copied' : 'Copy link'}
    </button>
  );
}

/**
 * A review link as it reads best when it wraps: break opportunities after
 * each `/` and before the query, so lines end where a person would split it
 * (the text and what is copied are unchanged; very long parts still wrap
 * anywhere rather than widen the page).
 */
function LinkText(props: { url: string }) {
  const parts = props.url.split(/(?<=\/)(?!\/)|(?=\?)|(?<==)/);
  return (
    <span class="link-text">
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </span>
  );
}

function ProductLinks(props: { link: string }) {
  const [offset, setOffset] = useState(0);
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  const [list, setList] = useState<ProductList | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    const params = new URLSearchParams({ offset: String(offset), limit: String(PAGE_SIZE), ...(query && { q: query }) });
    call<ProductList>('GET', `/products?${params}`).then(
      (res) => {
        setList(res);
        setError('');
      },
      (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the products.'),
    );
  }, [offset, query]);
  const linkOf = (p: ProductItem) => `${props.link}?product=${encodeURIComponent(p.id)}`;
  const end = list ? Math.min(list.offset + list.limit, list.total) : 0;
  return (
    <section class="section" aria-labelledby="product-links-title">
      <h2 id="product-links-title">Links for each product</h2>
      <p class="hint">A review written through a product's link is about that product: it counts in that product's widgets and rich results.</p>
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!list && !error && <Loading what="products" />}
      {list && (list.total > PAGE_SIZE || query) && (
        <form
          class="card filters product-search"
          role="search"
          aria-label="Product links"
          onSubmit={(e) => {
            e.preventDefault();
            setOffset(0);
            setQuery(typed.trim());
          }}
        >
          <div class="field">
            <label for="product-link-search">Search by id or name</label>
            <input id="product-link-search" type="search" autoComplete="off" spellcheck={false} value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
          </div>
          <button type="submit" class="button secondary">
            Search
          </button>
        </form>
      )}
      {list && list.data.length === 0 && <p class="empty card">{query ? `No product's id or name contains “${query}”.` : 'No product in your catalog yet: add products on the Products page to get a link for each.'}</p>}
      {list && list.data.length > 0 && (
        <DataTable<ProductItem>
          label="Product links"
          class="product-links"
          rows={list.data}
          rowKey={(p) => p.id}
          columns={[
            {
              name: 'Product',
              card: 'title',
              cellProps: (p) => ({ id: `link-row-${p.id}` }),
              cell: (p) => (
                <>
                  <span class="strong break">{p.name}</span>
                  <span class="mono muted p-id break">{p.id}</span>
                </>
              ),
            },
            { name: 'Review link', card: 'wide', class: 'p-link', cell: (p) => <LinkText url={linkOf(p)} /> },
            { name: 'Actions', card: 'actions', cell: (p) => <CopyButton value={linkOf(p)} describedBy={`link-row-${p.id}`} /> },
          ]}
        />
      )}
      {list && list.total > PAGE_SIZE && (
        <nav class="pager" aria-label="Pages of product links">
          <button type="button" class="button secondary" disabled={list.offset === 0} onClick={() => setOffset(Math.max(0, list.offset - PAGE_SIZE))}>
            Previous
          </button>
          <span class="muted">
            {formatNumber(Math.min(list.offset + 1, list.total))}–{formatNumber(end)} of {formatNumber(list.total)}
          </span>
          <button type="button" class="button secondary" disabled={end >= list.total} onClick={() => setOffset(list.offset + PAGE_SIZE)}>
            Next
          </button>
        </nav>
      )}
    </section>
  );
}

function Settings(props: { info: CollectInfo; staff: boolean; onSaved: (info: Pick<CollectInfo, 'shareUrl' | 'moderation'>) => void }) {
  const [shareUrl, setShareUrl] = useState(props.info.shareUrl ?? '');
  const [moderation, setModeration] = useState<ModerationMode>(props.info.moderation);
  const [error, setError] = useState<DashboardError | null>(null);
  const [saved, setSaved] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setSaved('');
    try {
      const res = await call<Pick<CollectInfo, 'shareUrl' | 'moderation'>>('PATCH', '/collect/settings', { shareUrl: shareUrl.trim() === '' ? null : shareUrl.trim(), moderation });
      setError(null);
      setSaved('Settings saved.');
      props.onSaved(res);
    } catch (err) {
      setError(err instanceof DashboardError ? err : new DashboardError(0, 'unknown', 'Something went wrong. Try again.'));
    } finally {
      setBusy(false);
    }
  };
  const shareProblem = error?.details.shareUrl ?? error?.fields.shareUrl;
  return (
    <section class="card collect-card" aria-labelledby="collect-settings-title">
      <h2 id="collect-settings-title">Settings</h2>
      <form onSubmit={submit} noValidate>
        <fieldset class="plain collect-fields" disabled={!props.staff}>
          <div class="field">
            <label for="share-url">“Also share your experience on …” link (optional)</label>
            <input
              id="share-url"
              type="text"
              inputMode="url"
              autoComplete="url"
              spellcheck={false}
              placeholder="https://"
              value={shareUrl}
              onInput={(e) => setShareUrl(e.currentTarget.value)}
              aria-invalid={shareProblem ? 'true' : undefined}
              aria-describedby={`share-url-hint${shareProblem ? ' share-url-error' : ''}`}
            />
            <p class="hint" id="share-url-hint">
              Your Google or Trustpilot review link, say. It is on every thank-you page, whatever the rating given. An https:// address; leave it empty for none.
            </p>
            {shareProblem && (
              <p class="field-error" id="share-url-error">
                {shareProblem}
              </p>
            )}
          </div>
          <fieldset class="choices">
            <legend>Moderation</legend>
            <label class="choice">
              <input type="radio" name="moderation" value="publish" checked={moderation === 'publish'} onChange={() => setModeration('publish')} aria-describedby="moderation-publish-hint" />
              <span>
                Publish confirmed reviews at once
                <span class="hint" id="moderation-publish-hint">
                  A review is published once its writer confirms it from the email (held for a person when it has more than 2 links).
                </span>
              </span>
            </label>
            <label class="choice">
              <input type="radio" name="moderation" value="hold" checked={moderation === 'hold'} onChange={() => setModeration('hold')} aria-describedby="moderation-hold-hint" />
              <span>
                Hold every review for a person
                <span class="hint" id="moderation-hold-hint">
                  Each review waits under Pending reviews until an Owner or Admin publishes or rejects it. Invited reviews are published at once.
                </span>
              </span>
            </label>
          </fieldset>
        </fieldset>
        {error && !shareProblem && (
          <Notice tone="error" role="alert">
            {error.message}
          </Notice>
        )}
        {props.staff && (
          <div class="form-actions">
            <button type="submit" class="button primary" disabled={busy}>
              Save settings
            </button>
            <p class="hint" role="status">
              {saved}
            </p>
          </div>
        )}
      </form>
    </section>
  );
}

export function CollectPage(props: { session: SessionInfo }) {
  const staff = props.session.user!.role !== 'member';
  const [info, setInfo] = useState<CollectInfo | null>(null);
  const [error, setError] = useState('');
  const [replacing, setReplacing] = useState(false);
  const [status, setStatus] = useState('');
  const load = () =>
    call<CollectInfo>('GET', '/collect').then(
      (res) => {
        setInfo(res);
        setError('');
      },
      (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load your review link.'),
    );
  useEffect(() => void load(), []);
  const replace = async () => {
    await call('POST', '/collect/link/rotate');
    setReplacing(false);
    setStatus('A new review link replaces the old one, which no longer works.');
    await load();
  };
  const productName = (id: string) => info?.products.find((p) => p.id === id)?.name ?? id;
  return (
    <>
      <PageHeader title="Collect" lead="Ask your customers for reviews: share your review link or its QR code. Reviews written there are yours to show, and can earn stars in search results." />
      {!staff && (
        <Notice tone="info">
          The link and settings are changed, and reviews published or rejected, by people with the <strong>Owner</strong> or <strong>Admin</strong> role.
        </Notice>
      )}
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!info && !error && <Loading what="your review link" />}
      {info && !info.mail && (
        <Notice tone="warning">
          No mail relay is configured (<code>SMTP_URL</code>), so reviewers cannot confirm by email: every review from your link is held for moderation until an Owner or Admin publishes it.
        </Notice>
      )}
      <p class="sr-only" role="status">
        {status}
      </p>
      {status && <Notice tone="success">{status}</Notice>}
      {info && (
        <section class="card collect-card collect-link" aria-labelledby="collect-link-title">
          <div class="collect-link-text">
            <h2 id="collect-link-title">Your review link</h2>
            <CopyField id="collect-url" label="Review link" value={info.url} />
            <p class="hint">Put it in your emails, receipts and website. For a review about one product, use that product's link below.</p>
            <div class="collect-downloads">
              <a class="button secondary small" href={`${QR}.svg`} download="review-link.svg">
                Download SVG
              </a>
              <a class="button secondary small" href={`${QR}.png`} download="review-link.png">
                Download PNG
              </a>
              {staff && (
                <button type="button" class="button danger-outline small" aria-haspopup="dialog" onClick={() => setReplacing(true)}>
                  Replace link
                </button>
              )}
            </div>
          </div>
          {/* The collectId in the address: a replaced link's code is fetched again, never served from the cache. */}
          <img class="collect-qr" src={`${QR}.svg?v=${info.collectId}`} width={180} height={180} alt={`QR code of your review link, ${info.url}`} />
        </section>
      )}
      {info && <PendingReviews staff={staff} productName={productName} onDecided={() => setStatus('')} />}
      {info && <Settings info={info} staff={staff} onSaved={(s) => setInfo({ ...info, ...s })} />}
      {info && <ProductLinks link={info.url} />}
      {info && staff && <InvitationUpload />}
      {/* Review invitations (CONTRACT §14): the list, conversion, settings and the mail's preview. */}
      <CollectInvitations staff={staff} orgName={props.session.org!.name} />
      {replacing && (
        <ConfirmDialog id="replace-link" title="Replace your review link?" label="Replace link" action={replace} onClose={() => setReplacing(false)}>
          <p>The current link and its QR code stop working at once: anyone who opens them gets a page that does not exist. Print and share the new link and QR code instead.</p>
          <p class="hint">Reviews already written stay as they are.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
