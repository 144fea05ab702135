/**
 * core/gate/hash.ts: the host's synchronous SHA-256 (installed by the Node host, issue 19 item 4) gives
 * exactly Web Crypto's digest, for empty, short, multi-block and non-ASCII inputs, so every hash an
 * approval, a snapshot or a transaction is bound to is the same whichever computes it.
 */
import { createHash } from "node:crypto"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import "../../adapters/node/NodeHostFs.ts"
import { hashOperation, sha256Bytes, sha256Text, stableStringify } from "../../core/gate/hash.ts"
import { toHex } from "../../core/text/hex.ts"

const webCrypto = async (bytes: Uint8Array) =>
  toHex(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>))

describe("sha256 with the Node host's synchronous digest installed", () => {
  const inputs = [
    "",
    "a",
    "abc",
    "x".repeat(55),
    "x".repeat(56),
    "y".repeat(64),
    "z".repeat(1000),
    "✓ é 日本 🙂\n".repeat(300)
  ]
  for (const text of inputs) {
    it(`equals Web Crypto for a ${text.length}-character input`, async () => {
      const bytes = new TextEncoder().encode(text)
      const expected = await webCrypto(bytes)
      expect(await Effect.runPromise(sha256Bytes(bytes))).toBe(expected)
      expect(await Effect.runPromise(sha256Text(text))).toBe(expected)
    })
  }

  it("is synchronous: sha256Bytes runs with Effect.runSync", () => {
    const bytes = new TextEncoder().encode("abc")
    expect(Effect.runSync(sha256Bytes(bytes))).toBe(createHash("sha256").update(bytes).digest("hex"))
  })

  it("hashOperation is the SHA-256 of the stable JSON", async () => {
    const operation = { b: [1, { d: 2, c: 3 }], a: "x" }
    expect(await Effect.runPromise(hashOperation(operation))).toBe(
      await webCrypto(new TextEncoder().encode(stableStringify(operation)))
    )
  })
})
