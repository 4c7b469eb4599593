/**
 * `genser/client`: the client call interface of contract 4.4 as an ES module.
 *
 *   import { createClient } from 'genser/client';
 *   const genser = createClient({ endpoint: 'https://search.example.com/client' });
 *   genser.call('searchProducts', { instanceKey, queryText }).success((res) => ...).error((e) => ...);
 */
export type { Call, CallError, CallName, ErrorReason } from './call.js';
export type {
  ClientOptions,
  FetchLike,
  GenserClient,
  Goods,
  LogAnswer,
  LogParams,
  SearchParams,
  Transport,
} from './client.js';
export { createClient, DEFAULT_TIMEOUT_MS } from './client.js';
export type { SearchAnswer, SearchProduct } from './search-answer.js';
