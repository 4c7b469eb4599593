import { describe, expect, it } from 'vitest';
import { settleable } from '../../src/client/call.js';

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('call handle', () => {
  it('runs each success callback once, also one attached after settling, never synchronously', async () => {
    const s = settleable<number>();
    const seen: string[] = [];
    s.call.success((v) => seen.push(`a${v}`)).error(() => seen.push('error'));
    s.resolve(1);
    s.resolve(2);
    s.reject({ call: 'x', reason: 'network', message: 'late' });
    expect(seen).toEqual(['a1']);
    s.call.success((v) => seen.push(`b${v}`));
    expect(seen).toEqual(['a1']);
    await tick();
    expect(seen).toEqual(['a1', 'b1']);
    await tick();
    expect(seen).toEqual(['a1', 'b1']);
  });

  it('runs error callbacks with the reason, and not the success ones', async () => {
    const s = settleable<number>();
    const seen: unknown[] = [];
    s.call.error((e) => seen.push(e.reason)).success(() => seen.push('success'));
    s.reject({ call: 'searchProducts', reason: 'timeout', message: 'no answer' });
    s.call.error((e) => seen.push(`late ${e.message}`));
    await tick();
    expect(seen).toEqual(['timeout', 'late no answer']);
  });

  it('keeps calling the other callbacks when one throws, and rethrows on its own task', async () => {
    const s = settleable<number>();
    const seen: number[] = [];
    const thrown: unknown[] = [];
    const onUncaught = (err: unknown) => thrown.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      s.call
        .success(() => {
          throw new Error('page bug');
        })
        .success((v) => seen.push(v));
      s.resolve(7);
      expect(seen).toEqual([7]);
      await new Promise((r) => setTimeout(r, 10));
      expect(thrown).toHaveLength(1);
      expect((thrown[0] as Error).message).toBe('page bug');
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
