/** Widgets: the organization's widgets; each opens the builder, and `Create widget` (Owner, Admin) starts a new one. */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type SessionInfo, type WidgetItem, type WidgetList } from '../../api.ts';
import { DataTable } from '../../components/data-table.tsx';
import { Loading, Notice, PageHeader } from '../../components/page.tsx';
import { formatDate } from '../../format.ts';
import { navigate, onLinkClick, PATHS } from '../../router.ts';

const LAYOUT_LABELS: Record<string, string> = { carousel: 'Carousel', grid: 'Grid', list: 'List', badge: 'Badge' };

export function WidgetsPage(props: { session: SessionInfo }) {
  const staff = props.session.user!.role !== 'member';
  const [widgets, setWidgets] = useState<WidgetItem[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    call<WidgetList>('GET', '/widgets').then((r) => setWidgets(r.data), (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the widgets.'));
  }, []);
  const open = (id: string) => `${PATHS.widgets}/${encodeURIComponent(id)}`;
  return (
    <>
      <PageHeader
        title="Widgets"
        lead="Review widgets you can paste into any page. Open one to change how it looks and see it live."
        actions={
          staff && (
            <button type="button" class="button primary" onClick={() => navigate(`${PATHS.widgets}/new`)}>
              Create widget
            </button>
          )
        }
      />
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!widgets && !error && <Loading what="widgets" />}
      {widgets && widgets.length === 0 && <p class="empty card">No widgets yet.{staff ? ' Create one to get a snippet for your site.' : ''}</p>}
      {widgets && widgets.length > 0 && (
        <DataTable
          label="Widgets"
          rows={widgets}
          rowKey={(w) => w.id}
          columns={[
            {
              name: 'Name',
              card: 'title',
              class: 'strong nowrap',
              cell: (w) => (
                <a href={open(w.id)} onClick={(e) => onLinkClick(e as unknown as MouseEvent, open(w.id))}>
                  {w.name}
                </a>
              ),
            },
            { name: 'Layout', card: 'badge', cell: (w) => <span class="badge">{LAYOUT_LABELS[w.layout] ?? w.layout}</span> },
            { name: 'About', card: 'wide', class: 'clip', cell: (w) => w.subject },
            { name: 'Widget id', card: 'wide', class: 'mono', cell: (w) => w.id },
            { name: 'Changed', class: 'nowrap', cell: (w) => formatDate(w.updatedAt) },
          ]}
        />
      )}
    </>
  );
}
