/**
 * The workspace key (core/gate/key.ts) in process: where the key file lives, the HMAC against node:crypto as an
 * independent oracle, constant-time verification, and loading or creating the key through in-memory file
 * operations (every branch of the race and of a damaged file). spec/sandbox/key.test.ts proves the same over
 * the real Node host (mode 0600, the sandbox cannot read it); this file is what the mutation run of key.ts
 * (docs/MUTATION.md) uses.
 */
import { createHash, createHmac } from "node:crypto"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import { describe, expect, it } from "vitest"
import {
  KEY_BYTES,
  type KeyError,
  type KeyFileOps,
  keyPath,
  keysDir,
  loadOrCreateKey,
  makeWorkspaceKey,
  randomKeyBytes,
  WorkspaceKey
} from "../../core/gate/key.ts"

const BYTES = new Uint8Array(32).map((_, index) => 200 - index)
const hmac = (payload: string, bytes: Uint8Array = BYTES) =>
  createHmac("sha256", Buffer.from(bytes)).update(payload, "utf8").digest("hex")
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

describe("where the key lives", () => {
  it("'${XDG_STATE_HOME:-$HOME/.local/state}/agentic-workspace/keys', trailing slashes trimmed", () => {
    expect(keysDir({ XDG_STATE_HOME: "/state", HOME: "/home/u" })).toBe("/state/agentic-workspace/keys")
    expect(keysDir({ XDG_STATE_HOME: "/state//", HOME: "/home/u" })).toBe("/state/agentic-workspace/keys")
    expect(keysDir({ HOME: "/home/u" })).toBe("/home/u/.local/state/agentic-workspace/keys")
    expect(keysDir({ HOME: "/home/u/" })).toBe("/home/u/.local/state/agentic-workspace/keys")
    expect(keysDir({})).toBe("/.local/state/agentic-workspace/keys")
  })

  it("an empty or relative XDG_STATE_HOME is ignored, as the XDG base directory specification asks", () => {
    expect(keysDir({ XDG_STATE_HOME: "", HOME: "/home/u" })).toBe("/home/u/.local/state/agentic-workspace/keys")
    expect(keysDir({ XDG_STATE_HOME: "state", HOME: "/home/u" })).toBe("/home/u/.local/state/agentic-workspace/keys")
  })

  it("a root of '/' is kept as it is (the path names the same folder)", () => {
    expect(keysDir({ XDG_STATE_HOME: "/" })).toBe("//agentic-workspace/keys")
    expect(keysDir({ HOME: "/" })).toBe("//.local/state/agentic-workspace/keys")
  })

  it("keyPath is the keys folder, the SHA-256 of the root's real path and '.key'", () => {
    expect(keyPath({ XDG_STATE_HOME: "/s" }, "ab12")).toBe("/s/agentic-workspace/keys/ab12.key")
  })
})

describe("signing and verifying", () => {
  it("sign is the lowercase hex HMAC-SHA-256 of the payload's UTF-8 bytes", async () => {
    const key = await run(makeWorkspaceKey(BYTES))
    for (const payload of ["", "abc", "é ✓ 𝄞", "x".repeat(1000)])
      expect(await run(key.sign(payload))).toBe(hmac(payload))
  })

  it("verify accepts exactly the payload's MAC: not another payload's, not a changed character anywhere, not a shorter, longer, upper-case or non-string one", async () => {
    const key = await run(makeWorkspaceKey(BYTES))
    const mac = hmac("payload")
    expect(await run(key.verify("payload", mac))).toBe(true)
    expect(await run(key.verify("payload!", mac))).toBe(false)
    const flip = (index: number) => `${mac.slice(0, index)}${mac[index] === "0" ? "1" : "0"}${mac.slice(index + 1)}`
    for (const index of [0, 1, 31, 62, 63]) expect(await run(key.verify("payload", flip(index)))).toBe(false)
    expect(await run(key.verify("payload", mac.slice(0, 63)))).toBe(false)
    expect(await run(key.verify("payload", `${mac}0`))).toBe(false)
    expect(await run(key.verify("payload", ""))).toBe(false)
    expect(await run(key.verify("payload", mac.toUpperCase()))).toBe(mac === mac.toUpperCase())
    expect(await run(key.verify("payload", 7 as unknown as string))).toBe(false)
    // not a string although as long as one: an array of the MAC's 64 characters
    expect(await run(key.verify("payload", [...mac] as unknown as string))).toBe(false)
    const other = await run(makeWorkspaceKey(new Uint8Array(32)))
    expect(await run(other.verify("payload", mac))).toBe(false)
  })

  it("the key holds its own copy of the bytes: changing the caller's array afterwards changes no MAC", async () => {
    const given = BYTES.slice()
    const key = await run(makeWorkspaceKey(given))
    given.fill(0)
    expect(await run(key.sign("p"))).toBe(hmac("p"))
  })

  it("a key that is not 32 bytes is a defect naming both lengths", async () => {
    expect(KEY_BYTES).toBe(32)
    for (const length of [0, 31, 33]) {
      const exit = await Effect.runPromiseExit(makeWorkspaceKey(new Uint8Array(length)))
      expect(Exit.isFailure(exit) ? String(exit.cause) : "").toContain(`a workspace key is 32 bytes, got ${length}`)
    }
  })

  it("randomKeyBytes: 32 fresh random bytes each time", () => {
    const a = randomKeyBytes()
    const b = randomKeyBytes()
    expect(a).toBeInstanceOf(Uint8Array)
    expect(a.length).toBe(32)
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false)
    expect(a.some((byte) => byte !== 0)).toBe(true)
  })
})

/** File operations over a Map, recording every call; `publish` scripts publish's answers. */
const memoryOps = (
  files: Map<string, Uint8Array>,
  options: { readonly publish?: (path: string, bytes: Uint8Array) => boolean } = {}
) => {
  const calls: Array<string> = []
  const ops: KeyFileOps = {
    read: (path) => Effect.sync(() => (calls.push(`read ${path}`), files.get(path))),
    mkdirPrivate: (dir) => Effect.sync(() => void calls.push(`mkdir ${dir}`)),
    publish: (path, bytes) =>
      Effect.sync(() => {
        calls.push(`publish ${path} ${bytes.length}`)
        if (options.publish !== undefined) return options.publish(path, bytes)
        if (files.has(path)) return false
        files.set(path, bytes)
        return true
      })
  }
  return { ops, calls }
}

const PATH = "/s/agentic-workspace/keys/r.key"
const failure = async (effect: Effect.Effect<unknown, KeyError>) => {
  const result = await run(Effect.either(effect))
  if (Either.isRight(result)) throw new Error("expected a KeyError")
  return { _tag: result.left._tag, path: result.left.path, message: result.left.message }
}
/** A KeyError as plain fields (`toEqual` on two KeyErrors does not compare their messages). */
const keyError = (fields: { readonly path: string; readonly message: string }) => ({ _tag: "KeyError", ...fields })

describe("loading or creating the key", () => {
  it("an existing 32-byte key is used as it is: nothing is created", async () => {
    const { ops, calls } = memoryOps(new Map([[PATH, BYTES]]))
    expect(await run(loadOrCreateKey(ops, PATH))).toBe(BYTES)
    expect(calls).toEqual([`read ${PATH}`])
  })

  it("a damaged key file fails with KeyError naming the file, its length and the repair", async () => {
    const { ops, calls } = memoryOps(new Map([[PATH, new Uint8Array(31)]]))
    expect(await failure(loadOrCreateKey(ops, PATH))).toEqual(
      keyError({
        path: PATH,
        message: `The workspace key ${PATH} holds 31 bytes instead of 32. Remove it to create a new one (every pending or approved record will then need the user's decision again).`
      })
    )
    expect(calls).toEqual([`read ${PATH}`])
  })

  it("no key yet: its folder is made private, 32 random bytes are published and returned", async () => {
    const files = new Map<string, Uint8Array>()
    const { ops, calls } = memoryOps(files)
    const bytes = await run(loadOrCreateKey(ops, PATH))
    expect(bytes.length).toBe(32)
    expect(files.get(PATH)).toBe(bytes)
    expect(calls).toEqual([`read ${PATH}`, "mkdir /s/agentic-workspace/keys", `publish ${PATH} 32`])
    const other = await run(loadOrCreateKey(memoryOps(new Map()).ops, PATH))
    expect(Buffer.from(other).equals(Buffer.from(bytes))).toBe(false)
  })

  it("another process won the race: its key is read back and used", async () => {
    const files = new Map<string, Uint8Array>()
    const { ops, calls } = memoryOps(files, { publish: (path) => (files.set(path, BYTES), false) })
    expect(await run(loadOrCreateKey(ops, PATH))).toBe(BYTES)
    expect(calls).toEqual([`read ${PATH}`, "mkdir /s/agentic-workspace/keys", `publish ${PATH} 32`, `read ${PATH}`])
  })

  it("the winner's key is damaged, or vanished: KeyError naming the file", async () => {
    const files = new Map<string, Uint8Array>()
    const damaged = memoryOps(files, { publish: (path) => (files.set(path, new Uint8Array(5)), false) })
    expect(await failure(loadOrCreateKey(damaged.ops, PATH))).toEqual(
      keyError({
        path: PATH,
        message: `The workspace key ${PATH} holds 5 bytes instead of 32. Remove it to create a new one (every pending or approved record will then need the user's decision again).`
      })
    )
    const vanished = memoryOps(new Map(), { publish: () => false })
    expect(await failure(loadOrCreateKey(vanished.ops, PATH))).toEqual(
      keyError({
        path: PATH,
        message: `The workspace key ${PATH} vanished while it was being created; start again.`
      })
    )
    expect(vanished.calls).toEqual([
      `read ${PATH}`,
      "mkdir /s/agentic-workspace/keys",
      `publish ${PATH} 32`,
      `read ${PATH}`
    ])
  })
})

describe("the WorkspaceKey layers", () => {
  it("the service's key is 'agentic-workspace/WorkspaceKey' (an embedder's layer, or a second copy of the module, provides it under that name)", () => {
    expect(WorkspaceKey.key).toBe("agentic-workspace/WorkspaceKey")
  })

  const signWith = <E>(layer: Layer.Layer<WorkspaceKey, E>, payload: string) =>
    run(Effect.flatMap(WorkspaceKey, (key) => key.sign(payload)).pipe(Effect.provide(layer)))

  it("layerMemory with bytes signs with them; without, each layer holds a fresh random key", async () => {
    expect(await signWith(WorkspaceKey.layerMemory(BYTES), "p")).toBe(hmac("p"))
    const a = await signWith(WorkspaceKey.layerMemory(), "p")
    const b = await signWith(WorkspaceKey.layerMemory(), "p")
    expect(a).toMatch(/^[0-9a-f]{64}$/)
    expect(a).not.toBe(b)
  })

  it("layerFile loads the key file named by the SHA-256 of the root's real path and signs with its bytes", async () => {
    const root = "/home/u/project"
    const digest = createHash("sha256").update(root).digest("hex")
    const path = `/state/agentic-workspace/keys/${digest}.key`
    const { ops, calls } = memoryOps(new Map([[path, BYTES]]))
    expect(await signWith(WorkspaceKey.layerFile(ops, { XDG_STATE_HOME: "/state" }, root), "p")).toBe(hmac("p"))
    expect(calls).toEqual([`read ${path}`])
  })

  it("layerFile names the key file by the host's SHA-256 of the root when the host gives one (WebCrypto is not loaded)", async () => {
    const seen: Array<string> = []
    const path = "/state/agentic-workspace/keys/the-host-digest.key"
    const { ops, calls } = memoryOps(new Map([[path, BYTES]]))
    const layer = WorkspaceKey.layerFile(ops, { XDG_STATE_HOME: "/state" }, "/r", (text) => {
      seen.push(text)
      return "the-host-digest"
    })
    expect(await signWith(layer, "p")).toBe(hmac("p"))
    expect(seen).toEqual(["/r"])
    expect(calls).toEqual([`read ${path}`])
  })

  it("layerFile fails with the KeyError of a damaged key file", async () => {
    const root = "/r"
    const digest = createHash("sha256").update(root).digest("hex")
    const path = `/state/agentic-workspace/keys/${digest}.key`
    const { ops } = memoryOps(new Map([[path, new Uint8Array(3)]]))
    const result = await run(
      Effect.either(
        Effect.flatMap(WorkspaceKey, (key) => key.sign("p")).pipe(
          Effect.provide(WorkspaceKey.layerFile(ops, { XDG_STATE_HOME: "/state" }, root))
        )
      )
    )
    expect(Either.isLeft(result) && result.left.path).toBe(path)
  })
})
