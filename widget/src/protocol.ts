/**
 * The few names the loader, the layouts' chunks and the server must agree on.
 * The loader is built from this file too, so changing a value here changes
 * every side at once.
 */

/** The one global the widget creates: `window.ReviewProof`. */
export const NAMESPACE = 'ReviewProof';

/** Prefix of every console message, so site owners can tell ours apart. */
export const LOG_PREFIX = '[reviews]';

/** Attribute that marks a container and carries the widget id. */
export const CONTAINER_ATTR = 'data-rv-widget';

/**
 * Attribute of a container naming the page's product, for a widget with `productFrom: "page"`
 * (CONTRACT §13): a catalog id (api/store/product-types.ts PRODUCT_ID, checked by the loader),
 * sent as the public data's `productId`; a value, never a URL.
 */
export const PRODUCT_ATTR = 'data-product-id';

/** Attribute with the reserved height in pixels (mirrors the inline min-height). */
export const HEIGHT_ATTR = 'data-rv-height';

/** Path of the static widget files on the service origin. */
export const ASSET_PATH = '/widget/';

/** The loader's file name under ASSET_PATH: the URL site owners paste. */
export const LOADER_FILE = 'loader.js';

/** Path of the public widget data on the service origin; the id follows. */
export const DATA_PATH = '/public/v1/widgets/';

/** Attribute of the JSON script holding the data of a server-rendered widget, inside its shadow root. */
export const DATA_ATTR = 'data-rv-data';

/**
 * Attribute on a JSON-LD script element the widget manages: the injected one holds its
 * subject (type and name); one printed by the site's server may hold anything (docs show
 * the widget id). The widget tells the documents' subjects apart by their content.
 */
export const JSON_LD_ATTR = 'data-rv-jsonld';
