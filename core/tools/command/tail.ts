/** Log tails, pure: decoding the last bytes of a log at UTF-8 boundaries and fitting text into a budget. */

const decoder = new TextDecoder("utf-8", { fatal: false })

/** Bytes read for a tail of `chars` characters: a UTF-8 character takes at most 4 bytes. */
export const tailBytesFor = (chars: number): number => chars * 4 + 4

/**
 * Decodes the end of a file read from an offset: leading continuation bytes of a character cut by the
 * offset are skipped (when the read did not start at 0), a trailing incomplete character (a writer
 * mid-flush) is dropped, and the last `chars` UTF-16 units are kept without splitting a surrogate pair.
 */
export const decodeTail = (bytes: Uint8Array, startsMidFile: boolean, chars: number): string => {
  let start = 0
  if (startsMidFile) {
    while (start < bytes.length && start < 3 && (bytes[start]! & 0xc0) === 0x80) start++
  }
  let end = bytes.length
  for (let back = 1; back <= 4 && end - back >= start; back++) {
    const byte = bytes[end - back]!
    if ((byte & 0xc0) === 0x80) continue
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    if (need > back) end -= back
    break
  }
  const text = decoder.decode(bytes.subarray(start, end))
  return clipStart(text, chars)
}

/** The last `chars` UTF-16 units of `text`, never starting inside a surrogate pair. */
export const clipStart = (text: string, chars: number): string => {
  if (text.length <= chars) return text
  let out = text.slice(text.length - chars)
  const first = out.charCodeAt(0)
  if (first >= 0xdc00 && first <= 0xdfff) out = out.slice(1)
  return out
}

/** The JSON length of a string's body (what it costs inside an envelope). */
export const jsonLength = (text: string): number => JSON.stringify(text).length - 2

/** The longest suffix of `text` whose JSON encoding fits in `budget` characters. */
export const fitTail = (text: string, budget: number): string => {
  if (budget <= 0) return ""
  if (jsonLength(text) <= budget) return text
  let low = 0
  let high = text.length
  // Find the smallest start index whose suffix fits.
  while (low < high) {
    const mid = (low + high) >> 1
    if (jsonLength(text.slice(mid)) <= budget) high = mid
    else low = mid + 1
  }
  return clipStart(text.slice(low), text.length - low)
}

/** Splits a budget between two texts: each gets half, and what one does not use goes to the other. */
export const splitBudget = (a: string, b: string, budget: number): readonly [number, number] => {
  const half = Math.floor(budget / 2)
  const needA = jsonLength(a)
  const needB = jsonLength(b)
  if (needA <= half) return [needA, budget - needA]
  if (needB <= half) return [budget - needB, needB]
  return [half, budget - half]
}
