/**
 * The whole widget for one container, whatever its layout: what the server
 * renders (api/widgets/widget-html.tsx) and the tests look at. In the
 * browser each layout's chunk (entries/) mounts only its own part, so that
 * a page loads only the layouts it shows.
 */
import { Badge } from './badge.tsx';
import { Carousel } from './carousel.tsx';
import { Framed, type WidgetProps } from './framed.tsx';
import { Paged } from './paged.tsx';

export { columnsFor, type WidgetProps } from './framed.tsx';

export function Widget(props: WidgetProps) {
  const { layout } = props.data;
  return layout === 'badge' ? <Badge {...props} /> : <Framed {...props} Body={layout === 'carousel' ? Carousel : Paged} />;
}
