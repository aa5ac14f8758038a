/** Widgets: the organization's widgets; each opens the builder, and `Create widget` (Owner, Admin) starts a new one. */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type SessionInfo, type WidgetItem, type WidgetList } from '../../api.ts';
import { Loading, Notice, PageHeader, TableWrap } from '../../components/page.tsx';
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
        <TableWrap label="Widgets">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Layout</th>
                <th scope="col">About</th>
                <th scope="col">Widget id</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {widgets.map((w) => (
                <tr key={w.id}>
                  <td class="strong nowrap">
                    <a href={open(w.id)} onClick={(e) => onLinkClick(e as unknown as MouseEvent, open(w.id))}>
                      {w.name}
                    </a>
                  </td>
                  <td>{LAYOUT_LABELS[w.layout] ?? w.layout}</td>
                  <td class="clip">{w.subject}</td>
                  <td class="mono">{w.id}</td>
                  <td class="nowrap">{formatDate(w.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}
