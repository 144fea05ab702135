/**
 * The one definition of a binary file, shared by read, search, edit and research: a NUL byte in the first
 * 8 KiB (what git and ripgrep use). Read shows such a file as binary (never numbered), search skips it, and
 * edit refuses to edit it as text (BINARY_FILE); a file read numbers, edit accepts, unless its bytes are not
 * valid UTF-8, which read flags (`invalidUtf8`) and edit refuses because rewriting it would corrupt it.
 * (The search worker, plain JavaScript run in its own thread, repeats the same 8 KiB rule.)
 */

/** How many leading bytes decide whether a file is binary. */
export const BINARY_SNIFF_BYTES = 8192

/** True when the bytes are binary: a NUL byte in their first BINARY_SNIFF_BYTES. */
export const isBinary = (bytes: Uint8Array): boolean => {
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES)
  for (let index = 0; index < end; index++) if (bytes[index] === 0) return true
  return false
}

/** True when the bytes start with the UTF-8 byte order mark. */
export const hasBom = (bytes: Uint8Array): boolean =>
  bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
