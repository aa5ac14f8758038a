/** The carousel's chunk. */
import { Carousel } from '../carousel.tsx';
import { framedMount } from '../framed-mount.tsx';

/** The carousel part of styles.ts, inlined by widget/build.ts. */
declare const __RV_CSS_CAROUSEL__: string;

export const mount = framedMount(Carousel, __RV_CSS_CAROUSEL__);
