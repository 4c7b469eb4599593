import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError } from '../shared/errors.js';

/**
 * `--ca-file` (docs/networks.md, "Trusting a company CA"), apart from the HTTP client: settings
 * are resolved before any command runs, and `genser --version` must not load undici for them.
 */
export const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The PEM certificates of a file; a usage error naming the file when there is none or one is broken. */
export function loadCaFile(file: string, from: string): { file: string; pems: string[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(
      `cannot read the CA file ${file} (${from}): ${code === 'ENOENT' ? 'no such file' : code}`,
      'give a file of PEM certificates (-----BEGIN CERTIFICATE-----)',
    );
  }
  const pems = text.match(PEM) ?? [];
  if (pems.length === 0)
    throw new UsageError(
      `the CA file ${file} (${from}) holds no PEM certificate`,
      'give a file of PEM certificates (-----BEGIN CERTIFICATE-----); convert DER with: openssl x509 -inform der -in ca.cer -out ca.pem',
    );
  pems.forEach((pem, i) => {
    try {
      new X509Certificate(pem);
    } catch {
      throw new UsageError(
        `certificate ${i + 1} in the CA file ${file} (${from}) cannot be read`,
        'check that the file was not cut or edited',
      );
    }
  });
  return { file, pems };
}
