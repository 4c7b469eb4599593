/**
 * The last accepted payloads of `skus`, asked `page` SKUs at a time (one query on a database
 * server, each pack decompressed once in a file), handed out in the order of `skus`; a SKU
 * without one is left out. The caller may write the state between two of them: a page is read
 * before its first payload is handed out, and the run writes only to SKUs already handed out.
 */
export async function* payloadsByPage(
  skus: readonly string[],
  page: number,
  read: (skus: readonly string[]) => Promise<Map<string, Uint8Array>>,
): AsyncGenerator<{ sku: string; payload: Uint8Array }> {
  for (let i = 0; i < skus.length; i += page) {
    const some = skus.slice(i, i + page);
    const payloads = await read(some);
    for (const sku of some) {
      const payload = payloads.get(sku);
      if (payload) yield { sku, payload };
    }
  }
}
