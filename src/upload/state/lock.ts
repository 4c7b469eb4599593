/**
 * The run lock's rule (docs/nightly.md, "The run lock"), apart from where the lock is kept: one
 * holder per target; the holder renews its heartbeat while it runs; a holder is stale when its
 * process is gone on this host, or when its heartbeat has not been renewed for LOCK_EXPIRY_MS
 * (a run killed on another host, a pod evicted: nobody can check its pid from here).
 */
export interface LockHolder {
  pid: number;
  host: string;
  started: string;
  /** When the holder last renewed the lock (ISO time); a lock from before heartbeats has none. */
  heartbeat: string | null;
}

/** How often a holder renews its heartbeat. */
export const HEARTBEAT_MS = 30_000;
/** A lock not renewed for this long is taken over: ten missed heartbeats. */
export const LOCK_EXPIRY_MS = 10 * HEARTBEAT_MS;

export type LockDecision =
  | { kind: 'take'; stale?: string }
  | { kind: 'refuse'; message: string; hint: string };

/** `45 s`, `12 min`, `3 h 5 min`, `2 days`. */
export function ageText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 120) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ${min % 60} min`;
  return `${Math.floor(h / 24)} days`;
}

/**
 * Whether `me` may take the lock `held` (undefined: nobody holds it). `alive` says whether a pid
 * of this host runs. A stale lock is taken with a line saying whose it was and how old.
 */
export function decideLock(
  held: LockHolder | undefined,
  me: { pid: number; host: string },
  now: Date,
  alive: (pid: number) => boolean,
): LockDecision {
  if (!held) return { kind: 'take' };
  const who = `pid ${held.pid} on ${held.host}, started ${held.started}`;
  const beat = Date.parse(held.heartbeat ?? held.started);
  const age = Number.isNaN(beat) ? Number.POSITIVE_INFINITY : now.getTime() - beat;
  const ageLine = Number.isFinite(age) ? `${ageText(age)} ago` : 'never';
  if (held.host === me.host && (held.pid === me.pid || !alive(held.pid)))
    return {
      kind: 'take',
      stale: `took over the lock of a run that is gone (${who}; its process no longer runs)`,
    };
  if (age > LOCK_EXPIRY_MS)
    return {
      kind: 'take',
      stale: `took over the lock of a run that stopped renewing it (${who}; last heartbeat ${ageLine}, over the ${ageText(LOCK_EXPIRY_MS)} a lock is kept without one)`,
    };
  return {
    kind: 'refuse',
    message: `another genser upload or stock run on the same target is running (${who}; last heartbeat ${ageLine})`,
    hint: `wait for it to finish; a run killed without releasing its lock (kill -9, an evicted pod) loses it ${ageText(LOCK_EXPIRY_MS)} after its last heartbeat (docs/nightly.md, "The run lock")`,
  };
}
