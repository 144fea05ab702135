/** Lowercase hex of bytes, and fresh random hex: the one encoder behind digests, MACs and ids. */

/** Bytes as lowercase hex, two digits a byte. */
export const toHex = (bytes: Uint8Array | ArrayBuffer): string =>
  Array.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes), (byte) =>
    byte.toString(16).padStart(2, "0")
  ).join("")

/** `count` random bytes (Web Crypto) as lowercase hex: 2 * count characters. */
export const randomHex = (count: number): string => {
  const bytes = new Uint8Array(count)
  crypto.getRandomValues(bytes)
  return toHex(bytes)
}
