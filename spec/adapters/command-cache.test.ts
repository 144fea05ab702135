/**
 * Issue 29, the CLI's start: `call` runs the command from its CommonJS bundle through vm.Script with a V8
 * code cache (adapters/node/commandCache.ts). Real files in temp folders: a small CommonJS bundle stands in
 * for the command here; spec/adapters/package.test.ts runs the real one through the installed bin. Each load
 * runs in its own Node process, as each `call` does: within one process V8 keeps what it compiled and would
 * not consult the cache at all.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cacheName, codeCacheDir, loadCommand } from "../../adapters/node/commandCache.ts"
import { makeTempDir, REPO } from "../support/workspace.ts"

let dir: string
let bundle: string
const SOURCE = [
  '"use strict";',
  "exports.answer = (n) => Array.from({ length: n }, (_, i) => i * i).reduce((a, b) => a + b, 0);",
  "exports.url = __awImportMetaUrl;",
  "exports.dir = __dirname;",
  'exports.probe = require("agentic-workspace:sandbox-probe");',
  'exports.path = require("node:path").sep;'
].join("\n")
const PROBE = { startSandboxProbe: () => "the entry's" }

beforeAll(async () => {
  dir = await makeTempDir("aw-code-cache-")
  bundle = path.join(dir, "dist", "command-0123456789abcdef.cjs")
  fs.mkdirSync(path.dirname(bundle))
  fs.writeFileSync(bundle, SOURCE)
})

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm")).href
const MODULE = pathToFileURL(path.join(REPO, "adapters/node/commandCache.ts")).href

interface Loaded {
  readonly answer: number
  readonly cacheFile: string | undefined
  readonly cachedDataRejected: boolean | undefined
}

/** One load of `file` in a new Node process (then save(), as the entry does after its answer). */
const load = (cacheDir: string | undefined, file = bundle): Loaded => {
  const driver = [
    `import { loadCommand } from ${JSON.stringify(MODULE)}`,
    `const loaded = loadCommand({ file: ${JSON.stringify(file)}, version: "9.9.9", cacheDir: ${JSON.stringify(cacheDir)}, provided: { "agentic-workspace:sandbox-probe": {} } })`,
    "const answer = loaded.exports.answer(10)",
    "loaded.save()",
    "process.stdout.write(JSON.stringify({ answer, cacheFile: loaded.cacheFile, cachedDataRejected: loaded.cachedDataRejected }))"
  ].join("\n")
  return JSON.parse(
    execFileSync(process.execPath, ["--import", TSX, "--input-type=module", "-e", driver], { encoding: "utf8" })
  ) as Loaded
}

const fresh = (name: string) => path.join(dir, name, "agentic-workspace", "code-cache")

describe("the command's code cache", () => {
  it("runs the bundle as CommonJS: its exports, its own URL and folder, the entry's probe, Node's modules", () => {
    const loaded = loadCommand({
      file: bundle,
      version: "9.9.9",
      cacheDir: undefined,
      provided: { "agentic-workspace:sandbox-probe": PROBE }
    })
    expect((loaded.exports["answer"] as (n: number) => number)(10)).toBe(285)
    expect(loaded.exports["url"]).toBe(`file://${bundle}`)
    expect(loaded.exports["dir"]).toBe(path.dirname(bundle))
    expect(loaded.exports["probe"]).toBe(PROBE)
    expect(loaded.exports["path"]).toBe("/")
    expect(loaded.cacheFile).toBeUndefined()
    expect(load(undefined).answer).toBe(285)
  })

  it("the first run writes the cache after its answer (folder 0700, file 0600); the next one uses it", () => {
    const cacheDir = fresh("first")
    const first = load(cacheDir)
    expect(first.cachedDataRejected).toBeUndefined()
    const file = path.join(cacheDir, cacheName(bundle, "9.9.9"))
    expect(first.cacheFile).toBe(file)
    expect(fs.statSync(cacheDir).mode & 0o777).toBe(0o700)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    const written = fs.statSync(file)
    const second = load(cacheDir)
    expect(second.cachedDataRejected).toBe(false)
    expect(second.answer).toBe(285)
    // Used, so not written again.
    expect(fs.statSync(file).ino).toBe(written.ino)
    expect(fs.readdirSync(cacheDir)).toEqual([path.basename(file)])
  })

  it("a corrupt cache gives the same answer (V8 rejects it) and is replaced", () => {
    const cacheDir = fresh("corrupt")
    load(cacheDir)
    const file = path.join(cacheDir, cacheName(bundle, "9.9.9"))
    fs.writeFileSync(file, Buffer.alloc(4096, 7))
    const corrupt = load(cacheDir)
    expect(corrupt.cachedDataRejected).toBe(true)
    expect(corrupt.answer).toBe(285)
    expect(load(cacheDir).cachedDataRejected).toBe(false)
  })

  it("a changed bundle never reads another's cache: the name carries the text's hash, and V8 checks its length", () => {
    const cacheDir = fresh("changed")
    load(cacheDir)
    const other = path.join(dir, "dist", "command-fedcba9876543210.cjs")
    fs.writeFileSync(other, `${SOURCE}\nexports.more = 1;`)
    expect(cacheName(other, "9.9.9")).not.toBe(cacheName(bundle, "9.9.9"))
    expect(cacheName(bundle, "9.9.10")).not.toBe(cacheName(bundle, "9.9.9"))
    const changed = load(cacheDir, other)
    expect(changed.cachedDataRejected).toBeUndefined()
    expect(changed.answer).toBe(285)
    // Even under the other bundle's name, V8 refuses a cache made for a text of another length.
    fs.copyFileSync(path.join(cacheDir, cacheName(bundle, "9.9.9")), path.join(cacheDir, cacheName(other, "9.9.9")))
    expect(load(cacheDir, other).cachedDataRejected).toBe(true)
  })

  it("a cache file others may write, or a link, is not read; a folder others may write is neither read nor written", () => {
    const cacheDir = fresh("loose")
    load(cacheDir)
    const file = path.join(cacheDir, cacheName(bundle, "9.9.9"))
    fs.chmodSync(file, 0o666)
    expect(load(cacheDir).cachedDataRejected).toBeUndefined()
    fs.chmodSync(file, 0o600)
    expect(load(cacheDir).cachedDataRejected).toBe(false)
    const target = path.join(dir, "planted.v8")
    fs.renameSync(file, target)
    fs.symlinkSync(target, file)
    expect(load(cacheDir).cachedDataRejected).toBeUndefined()
    fs.rmSync(file)
    fs.renameSync(target, file)
    fs.chmodSync(cacheDir, 0o777)
    expect(load(cacheDir).cachedDataRejected).toBeUndefined()
    fs.rmSync(file)
    expect(load(cacheDir).answer).toBe(285)
    expect(fs.existsSync(file)).toBe(false)
    fs.chmodSync(cacheDir, 0o700)
  })

  it("lives in the state folder the sandbox hides, and is off when the workspace holds that folder", () => {
    expect(codeCacheDir("/srv/project", { XDG_STATE_HOME: "/home/u/.state", HOME: "/home/u" })).toBe(
      "/home/u/.state/agentic-workspace/code-cache"
    )
    expect(codeCacheDir("/srv/project", { HOME: "/home/u" })).toBe("/home/u/.local/state/agentic-workspace/code-cache")
    // A relative XDG_STATE_HOME is ignored (the XDG rule core/gate/key.ts follows).
    expect(codeCacheDir("/srv/project", { XDG_STATE_HOME: "state", HOME: "/home/u" })).toBe(
      "/home/u/.local/state/agentic-workspace/code-cache"
    )
    // A workspace at the home folder, or at the state folder itself: a model's edit could plant a cache.
    expect(codeCacheDir("/home/u", { HOME: "/home/u" })).toBeUndefined()
    expect(codeCacheDir("/home/u/.local", { HOME: "/home/u" })).toBeUndefined()
    expect(codeCacheDir("/", { HOME: "/home/u" })).toBeUndefined()
    // A folder inside the workspace whose name merely starts with two dots is inside it all the same.
    expect(codeCacheDir("/srv/project", { XDG_STATE_HOME: "/srv/project/..state", HOME: "/home/u" })).toBeUndefined()
    expect(codeCacheDir("/home/u/project", { HOME: "/home/u" })).toBe(
      "/home/u/.local/state/agentic-workspace/code-cache"
    )
    // Through a link to it too.
    const real = path.join(dir, "home")
    fs.mkdirSync(real)
    fs.symlinkSync(real, path.join(dir, "home-link"))
    fs.mkdirSync(path.join(real, ".local/state"), { recursive: true })
    expect(codeCacheDir(path.join(dir, "home-link"), { HOME: real })).toBeUndefined()
    expect(codeCacheDir(real, { HOME: path.join(dir, "home-link") })).toBeUndefined()
  })
})
