import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Certificates made at test time with `openssl` (installed by .ci/run): a CA, and server
 * certificates for localhost/127.0.0.1 signed by it, one expired, one for another name, plus a
 * self-signed one. `hasOpenssl` is false where the binary is absent (the tests then skip).
 */
export const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

export interface Pki {
  dir: string;
  caFile: string;
  ca: string;
  /** Each a key and a certificate (PEM). */
  good: { key: string; cert: string };
  expired: { key: string; cert: string };
  otherName: { key: string; cert: string };
  selfSigned: { key: string; cert: string };
}

const run = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

function signed(dir: string, name: string, san: string, days: number): { key: string; cert: string } {
  writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\n`);
  run(dir, ['req', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  run(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    `${name}.pem`,
    '-days',
    String(days),
    '-extfile',
    `${name}.ext`,
  ]);
  return {
    key: readFileSync(join(dir, `${name}.key`), 'utf8'),
    cert: readFileSync(join(dir, `${name}.pem`), 'utf8'),
  };
}

export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'genser-pki-'));
  run(dir, [
    'req',
    '-x509',
    ...EC,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '30',
    '-subj',
    '/CN=Genser Test CA',
  ]);
  run(dir, [
    'req',
    '-x509',
    ...EC,
    '-keyout',
    'self.key',
    '-out',
    'self.pem',
    '-days',
    '30',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ]);
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    ca: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    good: signed(dir, 'good', 'DNS:localhost,IP:127.0.0.1', 30),
    expired: signed(dir, 'expired', 'DNS:localhost,IP:127.0.0.1', -1),
    otherName: signed(dir, 'other', 'DNS:other.example,DNS:www.other.example', 30),
    selfSigned: {
      key: readFileSync(join(dir, 'self.key'), 'utf8'),
      cert: readFileSync(join(dir, 'self.pem'), 'utf8'),
    },
  };
}
