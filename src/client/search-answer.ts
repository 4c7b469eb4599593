/**
 * The answer to searchProducts (contract 4.4), one type for every side of it: the sandbox
 * builds it, the browser client hands it to the page, `genser search` prints it. Types only:
 * the browser bundle and the Node side both import it.
 */
export interface SearchProduct {
  code: string;
  name: string;
  brand?: string;
  price?: number;
  currency?: string;
  image?: string;
  url?: string;
  /** Legacy isInStock (applied at once) or standard availability; absent when unknown. */
  inStock?: boolean;
  /** The backend's relevance; the sandbox gives one, the contract does not ask for it. */
  score?: number;
}

export interface SearchAnswer {
  type: 'SEARCH';
  requestId: string;
  queryText: string;
  /** Every match, also those past the limit (the sandbox always gives it; the contract does not ask). */
  total?: number;
  products: SearchProduct[];
}
