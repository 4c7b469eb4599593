/**
 * The eleven behaviour event kinds of contract section 2.6, as data. The sandbox's routes, the
 * event schemas in schemas/events/ and the events command are all derived from this table.
 *
 * Where the contract shows only samples (cart remove, click), the values below are the decision
 * recorded in docs/sandbox.md: cart remove is a DeleteAction (like wishlist remove) described by
 * `cart_remove.json`; click is a ChooseAction described by `click_product.json`.
 */
export const EVENT_TYPES = [
  'view_product',
  'click_product',
  'search_submitted',
  'search_result',
  'add_to_wishlist',
  'remove_from_wishlist',
  'add_to_cart',
  'remove_from_cart',
  'start_checkout',
  'complete_purchase',
  'cancel_purchase',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface EventKind {
  type: EventType;
  /** Path on the collection host, e.g. `/actions/view/product`. */
  path: string;
  /** The envelope `id` constant, e.g. `EVT-VIEW-PRODUCT`. */
  id: string;
  /** The `data.@type` the schema accepts. */
  actionType: string;
  /** File name at the end of `dataschema`: `<schema_base>/schema/actions/<file>`. */
  dataschemaFile: string;
  /** Bundled schema name for `getValidator`: `events/<type>`. */
  schemaName: string;
}

function kind(
  type: EventType,
  path: string,
  id: string,
  actionType: string,
  dataschemaFile: string,
): EventKind {
  return { type, path, id, actionType, dataschemaFile, schemaName: `events/${type}` };
}

export const EVENT_KINDS: readonly EventKind[] = [
  kind('view_product', '/actions/view/product', 'EVT-VIEW-PRODUCT', 'ViewAction', 'view_product.json'),
  kind('click_product', '/actions/click/product', 'EVT-CLICK-PRODUCT', 'ChooseAction', 'click_product.json'),
  kind(
    'search_submitted',
    '/actions/search/submitted',
    'EVT-SEARCH-SUBMITTED',
    'SearchAction',
    'search_submitted.json',
  ),
  kind('search_result', '/actions/search/result', 'EVT-SEARCH-RESULT', 'ViewAction', 'search_result.json'),
  kind('add_to_wishlist', '/actions/wishlist/add', 'EVT-ADD-TO-WISHLIST', 'AddAction', 'wishlist_add.json'),
  kind(
    'remove_from_wishlist',
    '/actions/wishlist/remove',
    'EVT-REMOVE-FROM-WISHLIST',
    'DeleteAction',
    'wishlist_remove.json',
  ),
  kind('add_to_cart', '/actions/cart/add', 'EVT-ADD-TO-CART', 'AddAction', 'cart_add.json'),
  kind(
    'remove_from_cart',
    '/actions/cart/remove',
    'EVT-REMOVE-FROM-CART',
    'DeleteAction',
    'cart_remove.json',
  ),
  kind(
    'start_checkout',
    '/actions/purchase/checkout',
    'EVT-START-CHECKOUT',
    'CheckoutAction',
    'purchase_checkout.json',
  ),
  kind(
    'complete_purchase',
    '/actions/purchase/complete',
    'EVT-COMPLETE-PURCHASE',
    'OrderAction',
    'purchase_complete.json',
  ),
  kind(
    'cancel_purchase',
    '/actions/purchase/cancel',
    'EVT-CANCEL-PURCHASE',
    'CancelAction',
    'purchase_cancel.json',
  ),
];

const byType = new Map<string, EventKind>(EVENT_KINDS.map((k) => [k.type, k]));
const byPath = new Map<string, EventKind>(EVENT_KINDS.map((k) => [k.path, k]));

export function kindByType(type: string): EventKind | undefined {
  return byType.get(type);
}

export function kindByPath(path: string): EventKind | undefined {
  return byPath.get(path);
}
