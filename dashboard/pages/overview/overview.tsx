/**
 * Overview: the organization's figures at a glance, three charts with their
 * text alternatives (rating distribution, reviews per month by platform,
 * average rating by month; months are UTC calendar months), and the plan.
 * An organization without reviews is told how to import them instead.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { call, DashboardError, type CollectInfo, type SessionInfo } from '../../api.ts';
import { Loading, Notice, PageHeader } from '../../components/page.tsx';
import { PlanCard } from '../../components/plan.tsx';
import { useSourcesAttention } from '../../components/source-attention.ts';
import { formatDecimal, formatNumber, formatRating } from '../../format.ts';
import { onLinkClick, PATHS } from '../../router.ts';
import { ChartFigure } from './chart-figure.tsx';
import './overview.css';
import type { ChartSpec } from './draw-chart.ts';
import {
  averageSummary,
  axisLabel,
  DASHES,
  distributionSummary,
  formatDuration,
  formatRate,
  monthLabel,
  monthlySummary,
  PALETTE,
  platformName,
  ratingLabel,
  replySummary,
  seriesPlatforms,
  type OverviewData,
  type ReplyFigures,
} from './overview-data.ts';

function Figures(props: { data: OverviewData }) {
  const { data } = props;
  const average = data.averageRating;
  const items: [string, ComponentChildren][] = [
    ['Reviews', formatNumber(data.totalReviews)],
    // People read the display rule (4.2); assistive technology is told the exact average (4.15).
    [
      'Average rating',
      average === null ? (
        '–'
      ) : (
        <>
          <span aria-hidden="true" title={`${formatDecimal(average)} out of 5`}>
            {formatRating(average)} / 5
          </span>
          <span class="sr-only">{formatDecimal(average)} out of 5</span>
        </>
      ),
    ],
    ['Last 7 days', formatNumber(data.last7Days)],
    ['Last 30 days', formatNumber(data.last30Days)],
    ['Widgets', formatNumber(data.widgets)],
    ['Members', formatNumber(data.members)],
  ];
  return (
    <dl class="stats">
      {items.map(([label, value]) => (
        <div class="stat card" key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Sources that need a person, until they are resolved: what each needs, and the way to Sources. */
function SourcesAttention(props: { session: SessionInfo }) {
  const items = useSourcesAttention();
  if (items.length === 0) return null;
  const staff = props.session.user!.role !== 'member';
  const one = items.length === 1;
  return (
    <section class="notice notice-warning attention" aria-labelledby="attention-title">
      <h2 id="attention-title">{one ? 'A review source needs attention' : `${items.length} review sources need attention`}</h2>
      <ul class="plain-list">
        {items.map((s) => (
          <li key={s.id}>
            <strong>
              {platformName(s.platform.toUpperCase())} {s.name}
            </strong>
            {s.state === 'needs_reauth' ? ': needs reconnecting (no reviews are collected until then).' : ': its syncs are failing.'}
            {s.lastError && <span class="attention-error"> {/[.!?]$/.test(s.lastError) ? s.lastError : `${s.lastError}.`}</span>}
          </li>
        ))}
      </ul>
      <p>
        <a href={PATHS.sources} onClick={(e) => onLinkClick(e as unknown as MouseEvent, PATHS.sources)}>
          Open Sources
        </a>{' '}
        {staff ? (one ? 'to reconnect it or see why.' : 'to reconnect them or see why.') : 'to see why; an Owner or Admin can reconnect.'}
      </p>
    </section>
  );
}

function HowToImport(props: { session: SessionInfo }) {
  const staff = props.session.user!.role !== 'member';
  return (
    <section class="card empty-overview" aria-labelledby="no-reviews-title">
      <h2 id="no-reviews-title">No reviews yet</h2>
      <p>The charts of your ratings and reviews per month appear here once your reviews are imported.</p>
      <ol class="plain-list steps">
        <li>
          {staff ? 'Open ' : 'An Owner or Admin opens '}
          <a href={PATHS.reviews} onClick={(e) => onLinkClick(e as unknown as MouseEvent, PATHS.reviews)}>
            Reviews
          </a>{' '}
          and {staff ? 'choose' : 'chooses'} <strong>Import reviews</strong> with a CSV, NDJSON or JSON file exported from your review platforms (fields: platform, externalId, authorName, rating,
          content, date).
        </li>
        <li>
          Or, on the server, your operator runs <code>npm run admin -- reviews import --org {props.session.org!.id} reviews.csv</code>.
        </li>
      </ol>
    </section>
  );
}

function Charts(props: { data: OverviewData }) {
  const { data } = props;
  const charts = useMemo(() => {
    const labels = data.months.map((m, i) => axisLabel(m.month, i === 0));
    const platforms = seriesPlatforms(data);
    const distribution: ChartSpec = {
      kind: 'bars',
      labels: data.ratingDistribution.map((r) => (r.rating === null ? 'None' : `${r.rating}★`)),
      series: [{ label: 'Reviews', values: data.ratingDistribution.map((r) => r.count), color: PALETTE[0], dash: [] }],
      formatY: formatNumber,
      height: 220,
    };
    const monthly: ChartSpec = {
      kind: 'lines',
      labels,
      series: platforms.map((p, i) => ({
        label: platformName(p),
        values: data.months.map((m) => m.platforms.find((x) => x.platform === p)?.count ?? 0),
        color: PALETTE[i % PALETTE.length]!,
        dash: DASHES[i % DASHES.length]!,
      })),
      formatY: formatNumber,
      height: 280,
    };
    const average: ChartSpec = {
      kind: 'lines',
      labels,
      series: [{ label: 'Average rating', values: data.months.map((m) => m.averageRating), color: PALETTE[0], dash: [] }],
      yRange: [0.8, 5.2],
      formatY: (n) => formatDecimal(n),
      height: 220,
    };
    return { distribution, monthly, average, platforms };
  }, [data]);
  return (
    <div class="charts">
      <ChartFigure
        id="chart-ratings"
        title="Rating distribution"
        summary={distributionSummary(data)}
        spec={charts.distribution}
        table={{ head: ['Rating', 'Reviews'], rows: data.ratingDistribution.map((r) => [ratingLabel(r.rating), formatNumber(r.count)]) }}
      />
      <ChartFigure
        id="chart-average"
        title="Average rating by month"
        summary={averageSummary(data)}
        spec={charts.average}
        note="A month without rated reviews has no point."
        table={{ head: ['Month', 'Average rating', 'Reviews'], rows: data.months.map((m) => [monthLabel(m.month), m.averageRating === null ? '–' : formatDecimal(m.averageRating), formatNumber(m.count)]) }}
      />
      <ChartFigure
        id="chart-monthly"
        title="Reviews per month by platform"
        summary={monthlySummary(data)}
        spec={charts.monthly}
        note="Months are calendar months in UTC."
        table={{
          head: ['Month', ...charts.platforms.map(platformName), 'All'],
          rows: data.months.map((m) => [monthLabel(m.month), ...m.platforms.map((p) => formatNumber(p.count)), formatNumber(m.count)]),
        }}
      />
    </div>
  );
}

/**
 * Replies over the last 90 days: per platform that shows replies (Google, Trustpilot, the review
 * page), the reviews received, how many have a reply, the rate and the median time to reply, from
 * the review's date to the reply's. Said in words when there is nothing to count.
 */
function RepliesCard(props: { replies: ReplyFigures }) {
  const r = props.replies;
  return (
    <section class="card rejected-card" aria-labelledby="replies-title">
      <h2 id="replies-title">Replies (last {r.days} days)</h2>
      <p class="hint">{replySummary(r)}</p>
      {r.platforms.length > 0 && (
        // Three columns whose cells wrap: they fit the card at 390 px without scrolling.
        <table class="table">
          <thead>
            <tr>
              {['Platform', 'Replied', 'Median time to reply'].map((h) => (
                <th scope="col" key={h}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {r.platforms.map((p) => (
              <tr key={p.platform}>
                <th scope="row">{platformName(p.platform)}</th>
                <td>{`${formatNumber(p.replied)} of ${formatNumber(p.received)} (${formatRate(p.replied, p.received)})`}</td>
                <td>{formatDuration(p.medianReplyMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * Reviews rejected on the Collect page in the last 90 days, by rating: rejecting a review because
 * it is negative is suppression, and this card makes it visible to everyone in the organization.
 */
function RejectedByRating() {
  const [counts, setCounts] = useState<CollectInfo['rejectedByRating'] | null>(null);
  useEffect(() => {
    // A server without the review page (503) shows no card: nothing can be rejected there.
    call<CollectInfo>('GET', '/collect').then(
      (res) => setCounts(res.rejectedByRating),
      () => setCounts(null),
    );
  }, []);
  if (!counts) return null;
  const total = counts.reduce((n, c) => n + c.count, 0);
  return (
    <section class="card rejected-card" aria-labelledby="rejected-title">
      <h2 id="rejected-title">Rejected reviews by rating (last 90 days)</h2>
      <p class="hint">
        {total === 0
          ? 'No review from your review page was rejected in the last 90 days.'
          : `${formatNumber(total)} ${total === 1 ? 'review' : 'reviews'} rejected. Rejecting reviews because they are negative is suppression, which Google and the FTC forbid.`}
      </p>
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Rating</th>
            <th scope="col">Rejected</th>
          </tr>
        </thead>
        <tbody>
          {[...counts].reverse().map((c) => (
            <tr key={c.rating}>
              <th scope="row">{ratingLabel(c.rating)}</th>
              <td>{formatNumber(c.count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function OverviewPage(props: { session: SessionInfo }) {
  const [data, setData] = useState<OverviewData | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    call<OverviewData>('GET', '/overview').then(setData, (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the overview.'));
  }, []);
  return (
    <>
      <PageHeader title="Overview" lead={`${props.session.org!.name} at a glance.`} />
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      <SourcesAttention session={props.session} />
      {!data && !error && <Loading what="figures" />}
      {data && <Figures data={data} />}
      {data && (data.totalReviews === 0 ? <HowToImport session={props.session} /> : <Charts data={data} />)}
      {data && data.totalReviews > 0 && <RepliesCard replies={data.replies} />}
      <RejectedByRating />
      <PlanCard org={props.session.org!} />
    </>
  );
}
