/**
 * Issue 29, the per-call floor: two answers capabilities asks for on every call no longer take the fiber
 * through a promise. The sandbox report is answered at once once the host's probe has settled, and must be
 * what the probe's promise gives, with the hidden folder read from the environment as it is now; a small
 * directory is listed synchronously, and must list what is there now and fail as the asynchronous listing
 * does.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { afterAll, describe, expect, it } from "vitest"
import { stateDir } from "../../core/gate/stateDir.ts"
import { nodeHostFs } from "../../adapters/node/NodeHostFs.ts"
import { sandboxSupport, sandboxSupportNow } from "../../adapters/node/sandbox.ts"
import { makeTempDir } from "../support/workspace.ts"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

describe("the sandbox report, answered at once once the probe settled", () => {
  it("is what sandboxSupport resolves to, and its hidden folder follows the environment as it is now", async () => {
    const awaited = await sandboxSupport()
    expect(sandboxSupportNow()).toEqual(awaited)
    const before = process.env.XDG_STATE_HOME
    const elsewhere = path.join(os.tmpdir(), "aw-support-now-state")
    process.env.XDG_STATE_HOME = elsewhere
    try {
      const now = sandboxSupportNow()
      expect(now?.hidden).toEqual([stateDir({ XDG_STATE_HOME: elsewhere, HOME: process.env.HOME || os.homedir() })])
      expect(now).toEqual(await sandboxSupport())
      expect(now).not.toEqual(awaited)
    } finally {
      if (before === undefined) delete process.env.XDG_STATE_HOME
      else process.env.XDG_STATE_HOME = before
    }
    expect(sandboxSupportNow()).toEqual(awaited)
  })
})

describe("readDir of the Node host", () => {
  const list = (abs: string) =>
    Effect.runPromise(Effect.either(nodeHostFs.readDir(abs))).then((result) =>
      Either.map(result, (entries) => [...entries].sort((a, b) => a.name.localeCompare(b.name)))
    )

  it("lists a small directory as it is now, on every call", async () => {
    const dir = await makeTempDir("aw-readdir-")
    dirs.push(dir)
    fs.writeFileSync(path.join(dir, "a.txt"), "a")
    fs.mkdirSync(path.join(dir, "sub"))
    expect(await list(dir)).toEqual(
      Either.right([
        { name: "a.txt", type: "file" },
        { name: "sub", type: "directory" }
      ])
    )
    fs.symlinkSync("a.txt", path.join(dir, "link"))
    fs.rmSync(path.join(dir, "sub"), { recursive: true })
    expect(await list(dir)).toEqual(
      Either.right([
        { name: "a.txt", type: "file" },
        { name: "link", type: "symlink" }
      ])
    )
  })

  it("lists a directory too large for the synchronous listing the same way", async () => {
    const dir = await makeTempDir("aw-readdir-large-")
    dirs.push(dir)
    const names = Array.from(
      { length: 1500 },
      (_, index) => `a-file-with-a-long-name-to-grow-the-directory-${index}.txt`
    )
    for (const name of names) fs.writeFileSync(path.join(dir, name), "")
    expect(fs.statSync(dir).size).toBeGreaterThan(16 * 1024)
    const listed = await list(dir)
    expect(Either.isRight(listed) && listed.right.length).toBe(names.length)
  })

  it("fails for what is not there or not a directory with the reason the asynchronous listing gives", async () => {
    const dir = await makeTempDir("aw-readdir-fail-")
    dirs.push(dir)
    fs.writeFileSync(path.join(dir, "file"), "x")
    const missing = await list(path.join(dir, "missing"))
    expect(Either.isLeft(missing) && missing.left.reason).toBe("NotFound")
    const notDir = await list(path.join(dir, "file"))
    expect(Either.isLeft(notDir) && notDir.left.reason).toBe("NotDirectory")
  })
})
