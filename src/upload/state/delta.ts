import { hash as digest } from 'node:crypto';
import { type StringMap, StringSet } from '../../shared/string-set.js';
import { SkuSet } from '../../validate/duplicates.js';
import type { RowRef } from '../batcher.js';
import type { EnvelopeType, MaybePromise, SendPlan, StateHooks } from '../types.js';
import type { InflightRow, UploadState } from './store.js';

/**
 * The delta of a run against the state: a row whose payload bytes hash to what the service last
 * accepted for its SKU is not sent (unless `full`); a SKU never accepted goes as
 * `create_product`, a known one as `update_product`.
 */
export interface DeltaCounts {
  new: number;
  changed: number;
  unchanged: number;
}

/**
 * The payload of a row known to be unchanged without its bytes (a row the feed skipped by its
 * source key, or one the guard's pass compared and spooled as such): counted, never sent.
 */
export const UNCHANGED: Uint8Array = new Uint8Array(0);

/** Source keys noted per transaction (a first run after an upgrade notes one per product). */
const NOTE_BATCH = 2000;

/**
 * What the state keeps of a payload to know it again: its SHA-256, the first 22 characters of
 * base64url (132 bits). `hash` in one call, not a Hash object per payload: 30% less, every
 * payload of a run (BENCHMARKS.md, "Stop 43").
 */
export function payloadHash(json: Uint8Array): string {
  return digest('sha256', json, 'base64url').slice(0, 22);
}

export class Delta implements StateHooks {
  readonly counts: DeltaCounts = { new: 0, changed: 0, unchanged: 0 };
  /** Batches a previous run sent without learning their outcome, by SKU. */
  private readonly inflight: Map<string, InflightRow>;
  private readonly sentIds = new Set<string>();

  private constructor(
    private readonly state: UploadState,
    private readonly full: boolean,
    inflight: Map<string, InflightRow>,
    /** SKUs owed to --retry-failed by earlier runs. */
    private readonly owed: Set<string>,
  ) {
    this.inflight = inflight;
  }

  /**
   * The delta against `state`, with the batches in flight and the SKUs owed by earlier runs.
   * `marksSeen`: the run looks for products gone from the feed, so `seen` keeps its SKUs.
   */
  static async load(state: UploadState, full: boolean, marksSeen = false): Promise<Delta> {
    const delta = new Delta(state, full, await state.inflight(), await state.owedSkus());
    delta.marksSeen = marksSeen;
    // A new state knows no hash: none is looked up row by row (a query each on a database server).
    if ((await state.knownCount()) === 0) delta.acceptedNow = new SkuSet();
    return delta;
  }

  /**
   * A row found unchanged (not sent): counted; the service holds exactly the feed's payload, so
   * one owed for its SKU by a failed run is superseded and is not sent by a later --retry-failed.
   */
  unchanged(sku: string): MaybePromise<undefined> {
    this.counts.unchanged++;
    if (this.owed.delete(sku)) return this.state.dropOwed(sku).then(() => undefined);
    return undefined;
  }

  /** Batches of earlier runs that are to be re-sent with their own ids. */
  get resumable(): number {
    return new Set([...this.inflight.values()].map((r) => r.envelopeId)).size;
  }

  /** Source keys of rows found unchanged by their bytes, to note in the state (see `compare`). */
  private readonly notes: { sku: string; hash: string; source: string }[] = [];

  /**
   * Synchronous when nothing is to be asked of the state (a row skipped by its source key, a hash
   * in memory): a nightly run plans every row of the feed, and most are unchanged.
   */
  plan(sku: string | undefined, json: Uint8Array, source?: string): MaybePromise<SendPlan | undefined> {
    // No SKU, nothing to remember it by: sent every time.
    if (sku === undefined) {
      this.counts.new++;
      return { type: 'create_product' };
    }
    if (json === UNCHANGED) return this.unchanged(sku);
    const hash = payloadHash(json);
    const last = this.lastHash(sku);
    if (last instanceof Promise) return last.then((l) => this.planned(sku, hash, l, source));
    return this.planned(sku, hash, last, source);
  }

  /** The plan of a row whose hash and last accepted hash are known. */
  private planned(
    sku: string,
    hash: string,
    last: string | undefined,
    source: string | undefined,
  ): MaybePromise<SendPlan | undefined> {
    const same = this.same(sku, hash, last, source);
    if (same instanceof Promise) return same.then((s) => this.sendPlan(sku, hash, last, s));
    return this.sendPlan(sku, hash, last, same);
  }

  private sendPlan(
    sku: string,
    hash: string,
    last: string | undefined,
    same: boolean,
  ): MaybePromise<SendPlan | undefined> {
    if (same && !this.full) return this.unchanged(sku);
    if (last === undefined) this.counts.new++;
    else if (!same) this.counts.changed++;
    else this.counts.unchanged++;
    const was = this.inflight.get(sku);
    if (was && was.hash === hash)
      return {
        type: was.type,
        hash,
        resume: { envelopeId: was.envelopeId, position: was.position, size: was.size },
      };
    return { type: last === undefined ? 'create_product' : 'update_product', hash };
  }

  /**
   * An earlier run sent other bytes for this SKU and never learnt whether they landed: the
   * service may hold them, so these bytes go again even when they are the ones last accepted.
   */
  inDoubt(sku: string, hash: string): boolean {
    const was = this.inflight.get(sku);
    return was !== undefined && was.hash !== hash;
  }

  /** Every accepted hash, read at once (a pass that compares most rows of a large feed). */
  private hashes: StringMap<string> | undefined;

  /**
   * Set when nothing was accepted before this run: every SKU is new unless this run got it
   * accepted, which these 64-bit hashes say (about 25 bytes a SKU); only then is the state asked
   * (a collision costs one query). A map of every SKU and hash grew by about 130 bytes a SKU:
   * 1.3 GB of a first upload of 10M rows (BENCHMARKS.md, "Ten million rows").
   */
  private acceptedNow: SkuSet | undefined;

  /** Lets go of what the set of SKUs accepted by this run keeps on disk (a first upload past SPILL_AT). */
  close(): void {
    this.acceptedNow?.close();
  }

  /** Hashes read at once; kept up to date with what this run gets accepted. */
  preloadHashes(hashes: StringMap<string>): void {
    this.hashes = hashes;
  }

  /**
   * A row's bytes against the hash the service last accepted for its SKU (asked ahead with its
   * page: `askAhead`): `same` only when no earlier batch is in doubt (`inDoubt`). A row found the
   * same has its source key noted (not with --full, which sends it and keeps the key as it is
   * accepted), so the next run skips it unmapped.
   */
  async compare(
    sku: string,
    json: Uint8Array,
    source: string | undefined,
  ): Promise<{ hash: string; last?: string; same: boolean }> {
    const hash = payloadHash(json);
    const last = await this.lastHash(sku);
    return { hash, last, same: await this.same(sku, hash, last, source) };
  }

  /**
   * Whether the service holds these bytes (then the source key is noted); a promise (of true)
   * only when the notes are written to the state.
   */
  private same(
    sku: string,
    hash: string,
    last: string | undefined,
    source: string | undefined,
  ): MaybePromise<boolean> {
    const same = last === hash && !this.inDoubt(sku, hash);
    if (same && !this.full && source !== undefined && this.notes.push({ sku, hash, source }) >= NOTE_BATCH)
      return this.flushNotes().then(() => true);
    return same;
  }

  /** Hashes asked ahead (`askAhead`) for rows on their way to `plan`, each taken once. */
  private readonly ahead = new Map<string, string | undefined>();

  /**
   * Asks the state at once for the hashes `plan` and `compare` will want for `skus` (the feed's
   * rows, a page at a time: src/nightly/asked-ahead.ts), unless memory answers them anyway. The
   * page before's answers go: its rows were all planned by now, and one never taken (a row of
   * another shard, a run that stopped) would be kept for nothing.
   */
  async askAhead(skus: readonly string[]): Promise<void> {
    this.ahead.clear();
    if (this.acceptedNow || this.hashes) return;
    const found = await this.state.acceptedHashesOf(skus);
    for (const sku of skus) this.ahead.set(sku, found.get(sku));
  }

  /** The hash last accepted for `sku`: from memory where it can be, else from the state. */
  private lastHash(sku: string): MaybePromise<string | undefined> {
    if (this.ahead.has(sku)) {
      const last = this.ahead.get(sku);
      this.ahead.delete(sku);
      return last;
    }
    if (this.acceptedNow) return this.acceptedNow.has(sku) ? this.state.acceptedHash(sku) : undefined;
    return this.hashes ? this.hashes.get(sku) : this.state.acceptedHash(sku);
  }

  async sending(batch: { rows: readonly RowRef[]; type?: EnvelopeType }, envelopeId: string): Promise<void> {
    this.sentIds.add(envelopeId);
    await this.state.recordInflight(envelopeId, batch.type ?? 'create_product', batch.rows);
  }

  async settled(envelopeId: string): Promise<void> {
    await this.state.forgetInflight([envelopeId]);
  }

  /**
   * After a run that read its whole feed: in-flight batches of earlier runs that this run did not
   * send again (their rows changed, left the feed, or went in new batches) are forgotten.
   */
  async finish(readToEnd: boolean): Promise<void> {
    await this.flushNotes();
    if (!readToEnd) return;
    const stale = new Set(
      [...this.inflight.values()].map((r) => r.envelopeId).filter((id) => !this.sentIds.has(id)),
    );
    if (stale.size > 0) await this.state.forgetInflight([...stale]);
  }

  async accepted(rows: readonly RowRef[], parts: readonly Uint8Array[]): Promise<void> {
    await this.state.accepted(rows, parts);
    for (const r of rows) {
      if (r.sku === undefined || r.hash === undefined) continue;
      // A hash asked ahead that this run has since replaced (the same SKU twice in a feed).
      if (this.ahead.has(r.sku)) this.ahead.set(r.sku, r.hash);
      if (this.acceptedNow) this.acceptedNow.add(r.sku, 0, 0);
      else this.hashes?.set(r.sku, r.hash);
    }
  }

  /** The source keys noted so far, into the state (one transaction). */
  async flushNotes(): Promise<void> {
    await this.state.noteSources(this.notes.splice(0));
  }

  /** The history id of this run, once started (rows not accepted are kept under it). */
  runId?: string;

  async notAccepted(rows: readonly RowRef[], parts: readonly Uint8Array[]): Promise<void> {
    if (this.runId !== undefined) await this.state.owe(this.runId, rows, parts);
  }

  /** SKUs of this feed, when it is checked for products gone from it. */
  readonly seenSkus = new StringSet();

  /**
   * Whether `seen` keeps the SKUs (`load`): only a run that looks for products gone from the feed
   * (`--missing out-of-stock`) reads them, and a set of every SKU grew with the feed (and a Set
   * holds at most 2^24 entries, hence a StringSet: BENCHMARKS.md, "Ten million rows").
   */
  private marksSeen = false;

  seen(sku: string): void {
    if (this.marksSeen) this.seenSkus.add(sku);
  }
}

/** `12 new, 340 changed, 49,648 unchanged (not sent)`; with --full the unchanged were sent. */
export function deltaLine(counts: DeltaCounts, full: boolean): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return `${n(counts.new)} new, ${n(counts.changed)} changed, ${n(counts.unchanged)} unchanged (${full ? 'sent again: --full' : 'not sent'})`;
}
