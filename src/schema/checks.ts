/**
 * Hand-written checks a JSON Schema cannot express. Pure; exported for the sandbox as well.
 */

/** GTIN-8/12/13/14: digits only, the right length, and a correct GS1 check digit. */
export function gtinValid(gtin: string): boolean {
  const n = gtin.length;
  if (n !== 8 && n !== 12 && n !== 13 && n !== 14) return false;
  let sum = 0;
  for (let i = 0; i < n - 1; i++) {
    const d = gtin.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    // Weights alternate 3,1,... counting from the digit next to the check digit.
    sum += (n - 1 - i) % 2 === 1 ? d * 3 : d;
  }
  const check = gtin.charCodeAt(n - 1) - 48;
  if (check < 0 || check > 9) return false;
  return (10 - (sum % 10)) % 10 === check;
}

/** The check digit that completes a GTIN body (all digits but the last). */
export function gtinCheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const d = body.charCodeAt(i) - 48;
    sum += (body.length - i) % 2 === 1 ? d * 3 : d;
  }
  return (10 - (sum % 10)) % 10;
}
