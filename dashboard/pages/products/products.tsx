/**
 * Products (CONTRACT §13): the organization's catalog, what a review may be
 * about, a page of 50 at a time (a catalog of 10,000 is never one table),
 * each product with its review count and average, searchable by id or name.
 * Owner and Admin add, edit, remove (refused while reviews name the product,
 * said in words) and import a CSV or NDJSON file through the same panel as
 * review imports; a Member reads.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type ProductItem, type ProductList, type SessionInfo } from '../../api.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { ImportPanel, type ImportKind } from '../../components/import-panel.tsx';
import { Loading, Notice, PageHeader } from '../../components/page.tsx';
import { formatNumber, formatRating } from '../../format.ts';
import { ProductDialog } from './product-dialog.tsx';

/** Products a page shows. */
const PAGE_SIZE = 50;

/** `Import products`: the shared import panel with the product file's words. */
const PRODUCT_IMPORT: ImportKind = {
  path: '/products/import',
  title: 'Import products',
  one: 'product',
  many: 'products',
  fileLabel: 'Product file',
  formats: ['csv', 'ndjson'],
  hint: (max) => (
    <>
      A CSV file with a header row, or NDJSON (one product a line), up to {max}. Fields: id and name, and optionally url, imageUrl, gtin, brand. A product whose id is already in the catalog is
      updated (every field replaced).
    </>
  ),
};

const productName = (p: Pick<ProductItem, 'id' | 'name'>): string => `“${p.name}” (${p.id})`;
const reviewsWord = (n: number): string => `${formatNumber(n)} ${n === 1 ? 'review' : 'reviews'}`;

/** Removing a product reviews still name, refused by the server (409), in words a shop owner can act on. */
function refusalInWords(p: ProductItem): string {
  const named = p.reviewCount > 0 ? `${reviewsWord(p.reviewCount)} ${p.reviewCount === 1 ? 'is' : 'are'}` : 'Reviews are';
  return `${named} about ${productName(p)}, so it stays in the catalog: a review keeps the product it is about. To remove it, import those reviews again without a productId (or with another product's id), then remove it.`;
}

export function ProductsPage(props: { session: SessionInfo }) {
  const staff = props.session.user!.role !== 'member';
  const [offset, setOffset] = useState(0);
  const [query, setQuery] = useState('');
  const [typed, setTyped] = useState('');
  const [list, setList] = useState<ProductList | null>(null);
  const [error, setError] = useState('');
  const [importing, setImporting] = useState(false);
  const [editing, setEditing] = useState<ProductItem | 'new' | null>(null);
  const [removing, setRemoving] = useState<ProductItem | null>(null);
  const [status, setStatus] = useState('');

  const load = () => {
    const params = new URLSearchParams({ offset: String(offset), limit: String(PAGE_SIZE), ...(query && { q: query }) });
    return call<ProductList>('GET', `/products?${params}`).then(
      (res) => {
        setList(res);
        setError('');
      },
      (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the products.'),
    );
  };
  useEffect(() => {
    void load();
  }, [offset, query]);

  const remove = async (p: ProductItem) => {
    try {
      await call('DELETE', `/products/${encodeURIComponent(p.id)}`);
    } catch (err) {
      if (err instanceof DashboardError && err.code === 'product_has_reviews') throw new DashboardError(err.status, err.code, refusalInWords(p));
      throw err;
    }
    setRemoving(null);
    setStatus(`${productName(p)} removed from the catalog.`);
    await load();
  };

  const lead = list
    ? query
      ? `${formatNumber(list.total)} ${list.total === 1 ? 'product matches' : 'products match'} “${query}”.`
      : `${formatNumber(list.total)} ${list.total === 1 ? 'product' : 'products'} in your catalog. A review about one of them names it, and only that product's widgets and rich results show it.`
    : 'Your product catalog: what your reviews can be about.';
  const end = list ? Math.min(list.offset + list.limit, list.total) : 0;
  return (
    <>
      <PageHeader
        title="Products"
        lead={lead}
        actions={
          staff && (
            <>
              <button
                type="button"
                class="button secondary"
                aria-expanded={importing}
                aria-controls="import-panel"
                onClick={() => {
                  setStatus('');
                  setImporting(!importing);
                }}
              >
                Import products
              </button>
              <button type="button" class="button primary" aria-haspopup="dialog" onClick={() => setEditing('new')}>
                Add product
              </button>
            </>
          )
        }
      />
      {!staff && (
        <Notice tone="info">
          The catalog is changed by people with the <strong>Owner</strong> or <strong>Admin</strong> role.
        </Notice>
      )}
      {importing && list && <ImportPanel kind={PRODUCT_IMPORT} maxBytes={list.maxImportBytes} onImported={() => void load()} />}
      <form
        class="card filters product-search"
        role="search"
        aria-label="Products"
        onSubmit={(e) => {
          e.preventDefault();
          setOffset(0);
          setQuery(typed.trim());
        }}
      >
        <div class="field">
          <label for="product-search">Search by id or name</label>
          <input id="product-search" type="search" autoComplete="off" spellcheck={false} value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        </div>
        <button type="submit" class="button secondary">
          Search
        </button>
      </form>
      <p class="sr-only" role="status">
        {status}
      </p>
      {status && <Notice tone="success">{status}</Notice>}
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!list && !error && <Loading what="products" />}
      {list && list.data.length === 0 && (
        <p class="empty card">
          {query ? `No product's id or name contains “${query}”.` : staff ? 'No product yet. Add one, or import your catalog from a CSV or NDJSON file.' : 'No product yet.'}
        </p>
      )}
      {list && list.data.length > 0 && (
        <DataTable<ProductItem>
          label="Products"
          class="products"
          rows={list.data}
          rowKey={(p) => p.id}
          columns={[
            {
              name: 'Product',
              card: 'title',
              cellProps: (p) => ({ id: `product-row-${p.id}` }),
              cell: (p) => (
                <>
                  <span class="strong break">{p.name}</span>
                  <span class="mono muted p-id break">{p.id}</span>
                </>
              ),
            },
            { name: 'Reviews', class: 'nowrap', cell: (p) => formatNumber(p.reviewCount) },
            { name: 'Average', class: 'nowrap', cell: (p) => (p.averageRating === null ? 'No ratings' : `${formatRating(p.averageRating)} / 5`) },
            { name: 'GTIN', class: 'mono nowrap', cell: (p) => p.gtin ?? '–' },
            { name: 'Brand', cell: (p) => p.brand ?? '–' },
            staff && {
              name: 'Actions',
              card: 'actions',
              cell: (p) => (
                <>
                  <button type="button" class="button secondary small" aria-haspopup="dialog" aria-describedby={`product-row-${p.id}`} onClick={() => setEditing(p)}>
                    Edit
                  </button>
                  <button type="button" class="button danger-outline small" aria-haspopup="dialog" aria-describedby={`product-row-${p.id}`} onClick={() => setRemoving(p)}>
                    Remove
                  </button>
                </>
              ),
            },
          ]}
        />
      )}
      {list && list.total > PAGE_SIZE && (
        <nav class="pager" aria-label="Pages of products">
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
      {editing && (
        <ProductDialog
          product={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(saved, created) => {
            if (saved) {
              setEditing(null);
              setStatus(`${productName(saved)} ${created ? 'added' : 'saved'}.`);
            }
            void load();
          }}
        />
      )}
      {removing && (
        <ConfirmDialog id="remove-product" title={`Remove ${removing.name}?`} label="Remove product" action={() => remove(removing)} onClose={() => setRemoving(null)}>
          <p>
            {productName(removing)} leaves the catalog: widgets and review links that name it stop finding it.
            {removing.reviewCount > 0 && ` ${reviewsWord(removing.reviewCount)} still name it, so the service will refuse until they name no product or another one.`}
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
