import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/shared/paths.js';
import { start } from '../sandbox/helpers.js';

const dist = join(packageRoot, 'dist', 'client');
const built = (name: string) => {
  const file = join(dist, name);
  if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
  return readFileSync(file, 'utf8');
};

describe('the built client', () => {
  it('is under 5 KB minified and gzipped', () => {
    const script = built('genser.js');
    const gz = gzipSync(script, { level: 9 }).length;
    expect(gz).toBeLessThan(5 * 1024);
    // ES2017: esbuild lowered the optional chaining the source uses (ES2020).
    expect(script).not.toMatch(/\?\.[A-Za-z_$([]|\?\?/);
    // Minified: no indentation left, one statement line after the banner.
    expect(script.split('\n').filter((l) => l.trim()).length).toBeLessThanOrEqual(3);
  });

  it('is importable as genser/client, typed, next to the bin and package.json exports', async () => {
    const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ genser: 'bin/genser.js' });
    expect(pkg.exports['./package.json']).toBe('./package.json');
    expect(pkg.exports['./client'].types).toBe('./dist/client/index.d.ts');
    // Self-reference through "exports", as a user's `import 'genser/client'` resolves it.
    const mod = await import('genser/client' as string);
    expect(typeof mod.createClient).toBe('function');
    expect(built('index.d.ts')).toContain('createClient');
    expect(built('client.d.ts')).toMatch(/export declare function createClient\(options\?: ClientOptions/);
  });

  it('defines window.genser, takes data-endpoint, and runs the calls queued before it loaded', async () => {
    const sandbox = await start({ instanceKey: 'vm-key' });
    try {
      const errors: unknown[] = [];
      const stub: any = { s: [], e: [] };
      stub.success = (cb: unknown) => {
        stub.s.push(cb);
        return stub;
      };
      stub.error = (cb: unknown) => {
        stub.e.push(cb);
        return stub;
      };
      const window: any = {
        genser: { q: [['call', 'searchProducts', { instanceKey: 'vm-key', queryText: 'x' }, stub]] },
      };
      const answered = new Promise<any>((resolve, reject) => {
        stub.success(resolve);
        stub.error(reject);
      });
      const context = {
        window,
        fetch: globalThis.fetch,
        AbortController,
        setTimeout,
        clearTimeout,
        console: { error: (...a: unknown[]) => errors.push(a) },
        document: {
          currentScript: {
            getAttribute: (n: string) => (n === 'data-endpoint' ? `${sandbox.url}/client` : null),
          },
        },
      };
      runInNewContext(built('genser.js'), context);
      expect(window.genser.loaded).toBe(true);
      expect(window.genser.version).toBe(
        JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version,
      );
      const res = await answered;
      expect(res).toMatchObject({ type: 'SEARCH', products: [] });
      // A callback attached to the stub after the load goes to the real call, and runs once.
      const late = await new Promise((resolve) => stub.success(resolve));
      expect(late).toBe(res);
      // After the load, a pushed entry runs at once; an unknown one is reported, not dropped silently.
      const pushed = await new Promise<any>((resolve) => {
        window.genser.q.push([
          'call',
          'searchProducts',
          { instanceKey: 'wrong', queryText: 'x' },
          { error: undefined },
        ]);
        window.genser.call('searchProducts', { instanceKey: 'wrong', queryText: 'x' }).error(resolve);
      });
      expect(pushed).toMatchObject({ reason: 'http', status: 401 });
      window.genser.q.push(['bogus']);
      expect(errors).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
  });
});

describe('docs/client.md', () => {
  it('embeds the demo page the sandbox serves, byte for byte', () => {
    const doc = readFileSync(join(packageRoot, 'docs', 'client.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### Integration example'));
    const block = /```html\n([\s\S]*?)```/.exec(section);
    expect(block).not.toBeNull();
    expect(block![1]).toBe(readFileSync(join(packageRoot, 'src', 'client', 'demo.html'), 'utf8'));
    expect(built('demo.html')).toBe(block![1]);
  });
});

describe('the sandbox serves the client', () => {
  it('serves /genser.js as built, and the demo page with its own address and instance key', async () => {
    const sandbox = await start({ instanceKey: 'demo-key-123' });
    try {
      const script = await fetch(`${sandbox.url}/genser.js`);
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(script.headers.get('access-control-allow-origin')).toBe('*');
      expect(await script.text()).toBe(built('genser.js'));
      const demo = await fetch(`${sandbox.url}/_sandbox/demo`);
      expect(demo.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await demo.text();
      expect(html).toContain(
        `<script async src="${sandbox.url}/genser.js" data-endpoint="${sandbox.url}/client">`,
      );
      expect(html).toContain("const INSTANCE_KEY = 'demo-key-123';");
      expect(html).not.toContain('YOUR_INSTANCE_KEY');
      expect(html).not.toContain('127.0.0.1:8080');
      expect((await fetch(`${sandbox.url}/genser.js`, { method: 'POST' })).status).toBe(405);
    } finally {
      await sandbox.close();
    }
  });
});
