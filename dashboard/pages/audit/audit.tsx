/** Audit log (Owner, Admin): who did what, when. */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type AuditRecord, type SessionInfo } from '../../api.ts';
import { DataTable } from '../../components/data-table.tsx';
import { Loading, Notice, PageHeader } from '../../components/page.tsx';
import { formatDateTime } from '../../format.ts';
import { actionInWords, detailInWords, subjectInWords } from './words.ts';

/** The webhook dispatcher disabling an endpoint by itself (a 410, 5 days of failures): written without a user, like the operator. */
const byService = (r: AuditRecord): boolean => (r.action === 'webhook.disabled' && !!r.details.reason && r.details.reason !== 'manual') || r.details.by === 'service';

export function AuditPage(props: { session: SessionInfo }) {
  const staff = props.session.user!.role !== 'member';
  const [records, setRecords] = useState<AuditRecord[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    if (staff) call<{ data: AuditRecord[] }>('GET', '/audit').then((r) => setRecords(r.data), (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the audit log.'));
  }, [staff]);
  if (!staff) {
    return (
      <>
        <PageHeader title="Audit log" />
        <Notice role="status">The audit log is for Owners and Admins.</Notice>
      </>
    );
  }
  return (
    <>
      <PageHeader title="Audit log" lead="Keys created and revoked, members invited, removed or given another role, reviews hidden or shown, widgets created or changed, products added, edited, removed or imported: who, what, when." />
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!records && !error && <Loading what="the audit log" />}
      {records && records.length === 0 && <p class="empty card">Nothing has happened yet.</p>}
      {records && records.length > 0 && (
        <DataTable
          label="Audit log"
          rows={records}
          rowKey={(r) => r.id}
          columns={[
            { name: 'When', class: 'nowrap', cell: (r) => formatDateTime(r.at) },
            { name: 'Who', cell: (r) => (r.actor.userId === null ? (byService(r) ? 'The service' : 'Operator (CLI)') : r.actor.email) },
            { name: 'What', card: 'wide', class: 'nowrap', cell: (r) => actionInWords(r.action) },
            {
              name: 'Subject',
              card: 'wide',
              cell: (r) => (
                <>
                  <span class="strong">{subjectInWords(r)}</span> <span class="muted">{detailInWords(r)}</span>
                </>
              ),
            },
          ]}
        />
      )}
    </>
  );
}
