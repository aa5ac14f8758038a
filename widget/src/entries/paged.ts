/** The chunk of the grid and the list (one body, paged.tsx, draws both). */
import { framedMount } from '../framed-mount.tsx';
import { Paged } from '../paged.tsx';

/** The paged part of styles.ts, inlined by widget/build.ts. */
declare const __RV_CSS_PAGED__: string;

export const mount = framedMount(Paged, __RV_CSS_PAGED__);
