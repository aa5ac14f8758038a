/**
 * The whole widget for one container, whatever its layout: what the server
 * renders (api/widgets/widget-html.tsx) and the tests look at. In the
 * browser each layout's chunk (entries/) mounts only its own part, so that
 * a page loads only the layouts it shows (and the replies' code only when
 * there is a reply to show).
 */
import { Badge } from './badge.tsx';
import { Carousel } from './carousel.tsx';
import { Framed, type WidgetProps } from './framed.tsx';
import { Paged } from './paged.tsx';
import { h } from 'preact';
import { replies, type H } from './reply.ts';

export { columnsFor, type WidgetProps } from './framed.tsx';

export function Widget(props: WidgetProps) {
  const { layout, organization } = props.data;
  if (layout === 'badge') return <Badge {...props} />;
  // The replies' parts on a formatter of its own (the caller's may serve other widgets); all folded.
  const f = organization ? { ...props.f, replies: replies(h as H, organization, props.f, () => undefined) } : props.f;
  return <Framed {...props} f={f} Body={layout === 'carousel' ? Carousel : Paged} />;
}
