import type { Dispatcher } from 'undici';

/**
 * Answers are read up to a bound (docs/networks.md): the service answers in kilobytes, so an
 * answer past 1 MiB is not its answer (a hostile or misrouted server, an endless body), and
 * reading it on would take memory and time without end. Past the bound the body is dropped at
 * once and the request fails, naming the size.
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;

const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;

export class AnswerTooLarge extends Error {
  readonly code = 'GENSER_ANSWER_TOO_LARGE';

  constructor(url: string, size: string) {
    super(`${url} answered ${size}, more than the ${mib(MAX_ANSWER_BYTES)} an answer may have: not read`);
    this.name = 'AnswerTooLarge';
  }
}

export async function readBounded(
  res: Dispatcher.ResponseData,
  url: string,
  limit = MAX_ANSWER_BYTES,
): Promise<string> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    res.body.destroy();
    throw new AnswerTooLarge(url, `${mib(declared)} (Content-Length ${declared})`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      res.body.destroy();
      throw new AnswerTooLarge(url, `more than ${mib(limit)} (stopped reading there)`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
