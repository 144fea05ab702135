/** core/gate/key.ts: the per-workspace approval key, kept outside the workspace. */
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { realpathSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import { KEY_BYTES, keyPath, keysDir, loadOrCreateKey, makeWorkspaceKey, WorkspaceKey } from "../../core/gate/key.ts"
import { nodeKeyFileOps, nodeWorkspaceKeyLayer } from "../../adapters/node/NodeKey.ts"
import { BIN, makeTempDir, openWorkspace, REPO, runCli } from "../support/workspace.ts"

const sha = (text: string) => createHash("sha256").update(text).digest("hex")

describe("keyPath: ${XDG_STATE_HOME:-$HOME/.local/state}/agentic-workspace/keys/<sha256 of the root's real path>.key", () => {
  it("uses XDG_STATE_HOME when it is set", () => {
    expect(keyPath({ XDG_STATE_HOME: "/state", HOME: "/home/u" }, "ab12")).toBe(
      "/state/agentic-workspace/keys/ab12.key"
    )
  })
  it("falls back to $HOME/.local/state when XDG_STATE_HOME is unset, empty or relative", () => {
    for (const XDG_STATE_HOME of [undefined, "", "relative/state"]) {
      expect(keyPath({ XDG_STATE_HOME, HOME: "/home/u/" }, "ab12")).toBe(
        "/home/u/.local/state/agentic-workspace/keys/ab12.key"
      )
    }
    expect(keysDir({ HOME: "/home/u" })).toBe("/home/u/.local/state/agentic-workspace/keys")
  })
})

describe("WorkspaceKey: HMAC-SHA-256 through WebCrypto", () => {
  it("signs as lowercase hex HMAC-SHA-256 and verifies only the same payload and mac", async () => {
    const bytes = new Uint8Array(KEY_BYTES).map((_, index) => index)
    const key = await Effect.runPromise(makeWorkspaceKey(bytes))
    const mac = await Effect.runPromise(key.sign("payload"))
    const { createHmac } = await import("node:crypto")
    expect(mac).toBe(createHmac("sha256", bytes).update("payload").digest("hex"))
    expect(await Effect.runPromise(key.verify("payload", mac))).toBe(true)
    expect(await Effect.runPromise(key.verify("payload!", mac))).toBe(false)
    expect(await Effect.runPromise(key.verify("payload", mac.toUpperCase()))).toBe(false)
    expect(await Effect.runPromise(key.verify("payload", ""))).toBe(false)
    const other = await Effect.runPromise(makeWorkspaceKey(new Uint8Array(KEY_BYTES)))
    expect(await Effect.runPromise(other.verify("payload", mac))).toBe(false)
  })

  it("the memory layer holds a random key per layer", async () => {
    const macOf = (layer: Layer.Layer<WorkspaceKey>) =>
      Effect.runPromise(
        Effect.provide(
          Effect.flatMap(WorkspaceKey, (key) => key.sign("x")),
          layer
        )
      )
    expect(await macOf(WorkspaceKey.layerMemory())).not.toBe(await macOf(WorkspaceKey.layerMemory()))
    const fixed = new Uint8Array(KEY_BYTES).fill(7)
    expect(await macOf(WorkspaceKey.layerMemory(fixed))).toBe(await macOf(WorkspaceKey.layerMemory(fixed)))
  })
})

describe("the Node key file", () => {
  it("specs keep keys in a temporary XDG_STATE_HOME, never in the real ~/.local/state", () => {
    const state = process.env.XDG_STATE_HOME ?? ""
    expect(state.startsWith(`${realpathSync(os.tmpdir())}/aw-state-`)).toBe(true)
    expect(state.startsWith(os.homedir())).toBe(false)
  })

  it("opening a workspace creates 32 random bytes, mode 0600, in a 0700 folder named by the sha256 of the root's real path", async () => {
    const ws = await openWorkspace()
    try {
      const file = keyPath({ XDG_STATE_HOME: process.env.XDG_STATE_HOME }, sha(ws.dir))
      const stats = await fs.stat(file)
      expect(stats.size).toBe(KEY_BYTES)
      expect(stats.mode & 0o777).toBe(0o600)
      expect((await fs.stat(path.dirname(file))).mode & 0o777).toBe(0o700)
      // Nothing inside the workspace names or holds the key.
      const inside = await fs.readdir(ws.dir, { recursive: true })
      expect(inside.some((name) => name.endsWith(".key"))).toBe(false)
    } finally {
      await ws.dispose()
    }
  })

  it("a second opening (and the CLI in another process) loads the same key", async () => {
    const dir = await makeTempDir()
    try {
      const macOf = () =>
        Effect.runPromise(
          Effect.provide(
            Effect.flatMap(WorkspaceKey, (key) => key.sign("x")),
            nodeWorkspaceKeyLayer(dir)
          )
        )
      const first = await macOf()
      expect(await macOf()).toBe(first)
      const file = keyPath({ XDG_STATE_HOME: process.env.XDG_STATE_HOME }, sha(dir))
      const before = await fs.readFile(file)
      const cli = await runCli(["call", "workspace_inspect", '{"action":"capabilities"}', "--root", dir], { cwd: REPO })
      expect(cli.code).toBe(0)
      expect(Buffer.compare(await fs.readFile(file), before)).toBe(0)
    } finally {
      await fs.rm(dir, { recursive: true, force: true })
    }
  })

  it("without XDG_STATE_HOME the CLI keeps the key under $HOME/.local/state (the default a clean clone uses)", async () => {
    const home = await makeTempDir("aw-home-")
    const dir = await makeTempDir()
    try {
      const { XDG_STATE_HOME: _drop, ...env } = process.env
      const code = await new Promise<number | null>((resolve) =>
        execFile(
          process.execPath,
          [BIN, "call", "workspace_inspect", '{"action":"capabilities"}', "--root", dir],
          { env: { ...env, HOME: home } },
          (error) => resolve(error === null ? 0 : ((error as { code?: number }).code ?? 1))
        )
      )
      expect(code).toBe(0)
      const stats = await fs.stat(keyPath({ HOME: home }, sha(dir)))
      expect(stats.size).toBe(KEY_BYTES)
      expect(stats.mode & 0o777).toBe(0o600)
    } finally {
      await fs.rm(home, { recursive: true, force: true })
      await fs.rm(dir, { recursive: true, force: true })
    }
  })

  it("two processes creating the key at once agree on one key", async () => {
    const state = await makeTempDir("aw-key-race-")
    try {
      const file = path.join(state, "keys", "race.key")
      const results = await Promise.all(
        Array.from({ length: 8 }, () => Effect.runPromise(loadOrCreateKey(nodeKeyFileOps, file)))
      )
      const stored = new Uint8Array(await fs.readFile(file))
      for (const bytes of results) expect(Buffer.compare(Buffer.from(bytes), Buffer.from(stored))).toBe(0)
      expect((await fs.readdir(path.dirname(file))).filter((name) => name.endsWith(".tmp"))).toEqual([])
    } finally {
      await fs.rm(state, { recursive: true, force: true })
    }
  })

  it("a damaged key file (not 32 bytes) is refused with the repair, not replaced", async () => {
    const state = await makeTempDir("aw-key-bad-")
    try {
      const file = path.join(state, "bad.key")
      await fs.writeFile(file, "short")
      const error = await Effect.runPromise(Effect.flip(loadOrCreateKey(nodeKeyFileOps, file)))
      expect(error._tag).toBe("KeyError")
      expect(error.message).toContain("Remove it to create a new one")
      expect(await fs.readFile(file, "utf8")).toBe("short")
    } finally {
      await fs.rm(state, { recursive: true, force: true })
    }
  })
})

describe("a key folder the system refuses (Node 20's recursive mkdir spins for ever under /proc)", () => {
  it.skipIf(process.platform !== "linux")(
    "a key under /proc fails with the repair instead of never returning, in process and from the CLI",
    async () => {
      const error = await Effect.runPromise(
        Effect.flip(loadOrCreateKey(nodeKeyFileOps, "/proc/none/agentic-workspace/keys/x.key"))
      )
      expect(error._tag).toBe("KeyError")
      expect(error.message).toContain("set XDG_STATE_HOME")
      const dir = await makeTempDir()
      try {
        const done = await new Promise<{ code: number | null; killed: boolean; stdout: string }>((resolve) =>
          execFile(
            process.execPath,
            [BIN, "call", "workspace_inspect", '{"action":"capabilities"}', "--root", dir],
            // A liveness bound, not a speed assertion: before the fix the process never ended.
            { env: { ...process.env, XDG_STATE_HOME: "/proc/none" }, timeout: 60_000 },
            (failure, stdout) =>
              resolve({
                code: failure === null ? 0 : typeof failure.code === "number" ? failure.code : null,
                killed: failure?.killed === true,
                stdout
              })
          )
        )
        expect(done.killed).toBe(false)
        expect(done.code).not.toBe(0)
        expect(JSON.parse(done.stdout).error.code).toBe("RUNTIME_UNAVAILABLE")
        expect(done.stdout).toContain("set XDG_STATE_HOME to a private writable directory")
      } finally {
        await fs.rm(dir, { recursive: true, force: true })
      }
    },
    90_000
  )
})
