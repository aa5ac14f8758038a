/** Overview: the organization's figures at a glance, and its plan (read-only) with what it allows. */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type SessionInfo } from '../../api.ts';
import { Loading, Notice, PageHeader } from '../../components/page.tsx';
import { PlanCard } from '../../components/plan.tsx';
import { formatDecimal, formatNumber } from '../../format.ts';

interface Overview {
  totalReviews: number;
  averageRating: number | null;
  last30Days: number;
  widgets: number;
  members: number;
}

export function OverviewPage(props: { session: SessionInfo }) {
  const [data, setData] = useState<Overview | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    call<Overview>('GET', '/overview').then(setData, (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the overview.'));
  }, []);
  return (
    <>
      <PageHeader title="Overview" lead={`${props.session.org!.name} at a glance.`} />
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!data && !error && <Loading what="figures" />}
      {data && (
        <dl class="stats">
          <div class="stat card">
            <dt>Reviews</dt>
            <dd>{formatNumber(data.totalReviews)}</dd>
          </div>
          <div class="stat card">
            <dt>Average rating</dt>
            <dd>{data.averageRating === null ? '–' : `${formatDecimal(data.averageRating)} / 5`}</dd>
          </div>
          <div class="stat card">
            <dt>New in the last 30 days</dt>
            <dd>{formatNumber(data.last30Days)}</dd>
          </div>
          <div class="stat card">
            <dt>Widgets</dt>
            <dd>{formatNumber(data.widgets)}</dd>
          </div>
          <div class="stat card">
            <dt>Members</dt>
            <dd>{formatNumber(data.members)}</dd>
          </div>
        </dl>
      )}
      <PlanCard org={props.session.org!} />
    </>
  );
}
