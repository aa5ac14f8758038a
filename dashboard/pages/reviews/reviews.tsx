/** Reviews: the latest ones, read-only (filters and import come with the reviews issue). */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError } from '../../api.ts';
import { Loading, Notice, PageHeader, TableWrap } from '../../components/page.tsx';
import { formatDate, formatNumber } from '../../format.ts';

interface ReviewItem {
  id: string;
  platform: string;
  authorName: string;
  rating: number | null;
  date: string;
  content: string;
}

export function ReviewsPage() {
  const [data, setData] = useState<{ data: ReviewItem[]; total: number } | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    call<{ data: ReviewItem[]; total: number }>('GET', '/reviews').then(setData, (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the reviews.'));
  }, []);
  return (
    <>
      <PageHeader title="Reviews" lead={data ? `The latest of your ${formatNumber(data.total)} reviews.` : 'Your latest reviews.'} />
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!data && !error && <Loading what="reviews" />}
      {data && (
        <TableWrap label="Latest reviews">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Platform</th>
                <th scope="col">Author</th>
                <th scope="col">Rating</th>
                <th scope="col">Review</th>
              </tr>
            </thead>
            <tbody>
              {data.data.map((r) => (
                <tr key={r.id}>
                  <td class="nowrap">{formatDate(r.date)}</td>
                  <td>{r.platform}</td>
                  <td>{r.authorName}</td>
                  <td class="nowrap">{r.rating === null ? 'No stars' : `${r.rating} / 5`}</td>
                  <td class="clip">{r.content}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}
