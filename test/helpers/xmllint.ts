import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';

/**
 * libxml2's xmllint, compiled to WebAssembly (the xmllint-wasm package `npm ci` brings), so the
 * JUnit checks need no system binary.
 */
const XSD = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'jenkins-junit.xsd'), 'utf8');

/** Throws with xmllint's messages unless the document is valid against the Jenkins JUnit XSD. */
export async function junitXsdValid(xml: string, fileName = 'junit.xml'): Promise<void> {
  const result = await validateXML({
    xml: [{ fileName, contents: xml }],
    schema: [{ fileName: 'jenkins-junit.xsd', contents: XSD }],
    maxMemoryPages: 1024,
  });
  if (!result.valid)
    throw new Error(`${fileName} is not valid against the Jenkins JUnit XSD:\n${result.rawOutput}`);
}

/** `xmllint --xpath EXPR`: what an XML parser reads from the document. */
export async function xpath(xml: string, expression: string): Promise<string> {
  const result = await validateXML({
    xml: [{ fileName: 'doc.xml', contents: xml }],
    normalization: 'format',
    maxMemoryPages: 1024,
    modifyArguments: (args) =>
      args
        .map((arg) => (arg === '--format' ? '--xpath' : arg))
        .flatMap((arg) => (arg === '--xpath' ? [arg, expression] : [arg])),
  });
  return result.normalized.replace(/\n$/, '');
}
