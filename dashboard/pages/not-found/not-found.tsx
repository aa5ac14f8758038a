/** Any dashboard path that is no page (the server answers it 404): say so, and where to go. */
import { PageHeader } from '../../components/page.tsx';
import { onLinkClick, PATHS } from '../../router.ts';

export function NotFoundPage(props: { path: string }) {
  return (
    <>
      <PageHeader title="Page not found" lead={<>There is no dashboard page at <span class="mono">{props.path}</span>.</>} />
      <p>
        <a href={PATHS.overview} onClick={(e) => onLinkClick(e as unknown as MouseEvent, PATHS.overview)}>
          Go to the Overview
        </a>{' '}
        or choose a page from the menu.
      </p>
    </>
  );
}
