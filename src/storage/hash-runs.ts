import { BlockedBloom } from './bloom.js';
import { openTempFile, readTempFile, removeTempFile, type TempFile, writeTempFile } from './temp-file.js';

/**
 * The entries of a hash set that memory no longer keeps (issue 32: memory flat at ten million
 * rows; BENCHMARKS.md, "Duplicate checks on disk"). The set is a linear-probing table of
 * entries of `width` 32-bit words, the first two an entry's 64-bit hash (a, b), (0, 0) an
 * empty slot. When full enough it is handed over whole: its entries are appended to one
 * temporary file in slot order (one pass, no sort), each with its slot, as one run. A lookup
 * probes a run as the table did: from the key's home slot to the first slot the run does not
 * hold. Memory keeps a Bloom filter of every key on disk (one cache line a lookup), one per run
 * (which runs to read when that one says "maybe": about 1 in 100 absent keys costs a read) and
 * the first slot of every block of BLOCK entries: about 3 bytes a key. The file is unlinked as
 * soon as it is open (it goes with the process), else removed by `close`.
 */

const BLOCK = 256;

interface Run {
  /** Where the run starts in the file, in entries. */
  start: number;
  count: number;
  /** The table's slots - 1: a key's home slot is `a & mask`. */
  mask: number;
  /** The slot of the first entry of each block of BLOCK entries. */
  firstSlot: Uint32Array;
  /** The run's own keys: which runs to read once the filter of all says "maybe". */
  bloom: BlockedBloom;
}

/** A set dropped without `close` (a run's state that outlives it) still lets its file go. */
const unclosed = new FinalizationRegistry<TempFile>(removeTempFile);

export class HashRuns {
  /** The open file (temp-file.ts), once the first run is written. */
  private file: TempFile | undefined;
  private written = 0;
  private readonly runs: Run[] = [];
  /** An entry on disk: the table's words and its slot. */
  private readonly record: number;
  /** Two blocks read at once: a probe may cross a block's edge. */
  private readonly view: Uint32Array;
  private readonly bytes: Buffer;
  /** Every key on disk; made again twice as large, from the file, when it fills. */
  private all: BlockedBloom | undefined;
  private readonly out: Uint32Array;

  constructor(
    private readonly width: number,
    /** Why entries are kept on disk, for the hint of an error ("a run's sets keep ..."). */
    private readonly why: string,
  ) {
    this.record = width + 1;
    this.view = new Uint32Array(2 * BLOCK * this.record);
    this.bytes = Buffer.from(this.view.buffer);
    this.out = new Uint32Array((1 << 14) * this.record);
  }

  /** Entries on disk. */
  get count(): number {
    return this.written;
  }

  /**
   * The entries of a linear-probing table of `mask + 1` slots as one run: `width` words a slot,
   * (0, 0) in the first two an empty one.
   */
  spill(table: Uint32Array, mask: number): void {
    const width = this.width;
    const record = this.record;
    let count = 0;
    for (let at = 0; at < table.length; at += width) if (table[at] !== 0 || table[at + 1] !== 0) count++;
    if (count === 0) return;
    const run: Run = {
      start: this.written,
      count,
      mask,
      firstSlot: new Uint32Array(Math.ceil(count / BLOCK)),
      bloom: new BlockedBloom(count),
    };
    const all = this.filterFor(this.written + count);
    const out = this.out;
    let n = 0;
    let e = 0;
    let pos = this.written * record * 4;
    for (let slot = 0; slot <= mask; slot++) {
      const at = slot * width;
      const a = table[at];
      const b = table[at + 1];
      if (a === 0 && b === 0) continue;
      if (e % BLOCK === 0) run.firstSlot[e / BLOCK] = slot;
      e++;
      run.bloom.add(a, b);
      all.add(a, b);
      const to = n * record;
      for (let w = 0; w < width; w++) out[to + w] = table[at + w];
      out[to + width] = slot;
      if (++n * record === out.length) {
        pos += this.write(out, n * record * 4, pos);
        n = 0;
      }
    }
    if (n > 0) this.write(out, n * record * 4, pos);
    this.runs.push(run);
    this.written += count;
  }

  /** The words of the entry with hash (a, b), valid until the next call; undefined when none. */
  find(a: number, b: number): Uint32Array | undefined {
    // One cache line for most keys (absent ones, in a set's common case), not one per run.
    if (!this.all?.has(a, b)) return undefined;
    for (const run of this.runs) {
      if (!run.bloom.has(a, b)) continue;
      const hit = this.findIn(run, a, b);
      if (hit) return hit;
    }
    return undefined;
  }

  /** Lets the file go (already unlinked where the system allows it). */
  close(): void {
    if (this.file) removeTempFile(this.file);
    this.file = undefined;
    unclosed.unregister(this);
  }

  /** The filter of all keys, with room for `count`: at most doubling, so each key is read back about once. */
  private filterFor(count: number): BlockedBloom {
    if (this.all && this.all.capacity >= count) return this.all;
    const all = new BlockedBloom(2 * count);
    const record = this.record;
    // The writes' buffer, free between spills: a read in large pieces.
    const words = this.out;
    const chunk = words.length / record;
    for (let at = 0; at < this.written; at += chunk) {
      const n = Math.min(chunk, this.written - at);
      this.read(at, n, words);
      for (let i = 0; i < n; i++) all.add(words[i * record], words[i * record + 1]);
    }
    this.all = all;
    return all;
  }

  /** The table's probe, on disk: from the home slot, entry by entry, to the first slot not held. */
  private findIn(run: Run, a: number, b: number): Uint32Array | undefined {
    const home = a & run.mask;
    const firstSlot = run.firstSlot;
    // The last block starting at or before the home slot (the first block when none does).
    let lo = 0;
    let hi = firstSlot.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (firstSlot[mid] <= home) lo = mid + 1;
      else hi = mid;
    }
    let next = home;
    let wrapped = false;
    for (let block = Math.max(0, lo - 1); ; block += 2) {
      if (block >= firstSlot.length) {
        // The probe goes on past the table's last slot, at slot 0, as the table's did.
        if (wrapped || next <= run.mask) return undefined;
        [block, next, wrapped] = [0, 0, true];
      }
      const found = this.probeBlocks(run, block, a, b, next);
      if (typeof found !== 'number') return found ?? undefined;
      next = found;
    }
  }

  /**
   * Two blocks of a run, from entry `block * BLOCK`: the entry of (a, b) when met at or after slot
   * `next`; null when slot `next` is not held (an empty slot ends a probe); else the next slot.
   */
  private probeBlocks(
    run: Run,
    block: number,
    a: number,
    b: number,
    next: number,
  ): Uint32Array | null | number {
    const first = block * BLOCK;
    const n = Math.min(2 * BLOCK, run.count - first);
    this.read(run.start + first, n);
    const record = this.record;
    const view = this.view;
    for (let i = 0; i < n; i++) {
      const at = i * record;
      const slot = view[at + this.width];
      if (slot < next) continue;
      if (slot > next) return null;
      if (view[at] === a && view[at + 1] === b) return view.subarray(at, at + record);
      next++;
    }
    return next;
  }

  private read(entry: number, n: number, into = this.view): void {
    const length = n * this.record * 4;
    const bytes =
      into === this.view ? this.bytes : Buffer.from(into.buffer, into.byteOffset, into.byteLength);
    readTempFile(this.file!, bytes, 0, length, entry * this.record * 4, this.why);
  }

  private write(words: Uint32Array, length: number, at: number): number {
    const bytes = Buffer.from(words.buffer, words.byteOffset, length);
    writeTempFile(this.open(), bytes, length, at, this.why);
    return length;
  }

  private open(): TempFile {
    if (!this.file) {
      this.file = openTempFile(this.why);
      unclosed.register(this, this.file, this);
    }
    return this.file;
  }
}
