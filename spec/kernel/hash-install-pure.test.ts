/**
 * The digests a host installs into core/gate/hash.ts: the synchronous SHA-256 every hash of the core goes
 * through once installed (Node: node:crypto), and the incremental one a streamed file is hashed with
 * (core/services/hostReads.ts). In a file of its own: what it installs stays installed for the file's
 * process, and the first case must see nothing installed yet.
 */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import {
  installSha256,
  installSha256Stream,
  type Sha256Stream,
  sha256Bytes,
  sha256Stream
} from "../../core/gate/hash.ts"

const ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
const abc = new TextEncoder().encode("abc")

describe("the digests a host installs (core/gate/hash.ts)", () => {
  it("without an installed digest, sha256Bytes is Web Crypto's and there is no incremental SHA-256", async () => {
    expect(await Effect.runPromise(sha256Bytes(abc))).toBe(ABC)
    expect(sha256Stream()).toBeUndefined()
  })

  it("an installed synchronous digest is what sha256Bytes answers, called once with the bytes", async () => {
    const seen: Array<string> = []
    installSha256((bytes) => {
      seen.push(new TextDecoder().decode(bytes))
      return "the installed digest"
    })
    expect(await Effect.runPromise(sha256Bytes(abc))).toBe("the installed digest")
    expect(seen).toEqual(["abc"])
  })

  it("an installed incremental SHA-256: sha256Stream makes a fresh stream per call", () => {
    let made = 0
    installSha256Stream((): Sha256Stream => {
      made += 1
      const chunks: Array<string> = []
      return { update: (chunk) => void chunks.push(new TextDecoder().decode(chunk)), digest: () => chunks.join("|") }
    })
    const first = sha256Stream()
    const second = sha256Stream()
    expect(made).toBe(2)
    first?.update(abc)
    first?.update(abc)
    expect(first?.digest()).toBe("abc|abc")
    expect(second?.digest()).toBe("")
  })
})
