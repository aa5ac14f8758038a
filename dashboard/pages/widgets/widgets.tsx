/** Widgets: the list, read-only (the builder comes with the widgets issue). */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError } from '../../api.ts';
import { Loading, Notice, PageHeader, TableWrap } from '../../components/page.tsx';
import { formatDate } from '../../format.ts';

interface WidgetItem {
  id: string;
  name: string;
  layout: string;
  createdAt: string;
}

export function WidgetsPage() {
  const [widgets, setWidgets] = useState<WidgetItem[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    call<{ data: WidgetItem[] }>('GET', '/widgets').then((r) => setWidgets(r.data), (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the widgets.'));
  }, []);
  return (
    <>
      <PageHeader title="Widgets" lead="Review widgets you can paste into any page." />
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!widgets && !error && <Loading what="widgets" />}
      {widgets && widgets.length === 0 && <p class="empty card">No widgets yet.</p>}
      {widgets && widgets.length > 0 && (
        <TableWrap label="Widgets">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Layout</th>
                <th scope="col">Widget id</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {widgets.map((w) => (
                <tr key={w.id}>
                  <td class="strong">{w.name}</td>
                  <td>{w.layout}</td>
                  <td class="mono">{w.id}</td>
                  <td>{formatDate(w.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}
