/**
 * UTF-8 validation with positions. TextDecoder (fatal) says *that* bytes are invalid; these say
 * *where*, which is only needed on the error path and on the detection sample.
 */

/**
 * Index of the first byte where invalid UTF-8 starts (the lead of the bad sequence), or -1.
 * With `final` false, a sequence cut off by the end of `bytes` is not an error (more may follow).
 */
export function firstInvalidUtf8(bytes: Uint8Array, start = 0, final = true): number {
  const n = bytes.length;
  let i = start;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b === 0xe0) {
      need = 2;
      lo = 0xa0;
    } else if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) need = 2;
    else if (b === 0xed) {
      need = 2;
      hi = 0x9f;
    } else if (b === 0xf0) {
      need = 3;
      lo = 0x90;
    } else if (b >= 0xf1 && b <= 0xf3) need = 3;
    else if (b === 0xf4) {
      need = 3;
      hi = 0x8f;
    } else return i;
    if (i + 1 >= n) return final ? i : -1;
    const second = bytes[i + 1];
    if (second < lo || second > hi) return i;
    for (let k = 2; k <= need; k++) {
      if (i + k >= n) return final ? i : -1;
      if ((bytes[i + k] & 0xc0) !== 0x80) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** How many bytes at the end of `bytes` start a multi-byte sequence that is not complete yet (0..3). */
export function incompleteTail(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= 3 && back <= n; back++) {
    const b = bytes[n - back];
    if ((b & 0xc0) === 0x80) continue;
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}
