/**
 * Issue 29, docs/INSPECT.md "The per-call floor": a listing asks its page's sizes through the host's optional
 * `lstatMany` in one step. What withSizes relies on: for every path the Node host's lstatMany answers what
 * lstat answers (a file, a directory, a symlink not followed), and undefined where lstat finds nothing or
 * fails (a missing path, a path under a file) — never a failure of the whole page. Real files in a temp dir.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { nodeHostFs } from "../../adapters/node/NodeHostFs.ts"
import { makeTempDir } from "../support/workspace.ts"

let root: string | undefined
afterEach(async () => {
  if (root !== undefined) await fs.rm(root, { recursive: true, force: true })
  root = undefined
})

describe("the Node host's lstatMany", () => {
  it("answers, path by path, what lstat answers, and undefined where lstat finds nothing or fails", async () => {
    root = await makeTempDir()
    await fs.writeFile(path.join(root, "a.txt"), "12345")
    await fs.writeFile(path.join(root, "empty.txt"), "")
    await fs.mkdir(path.join(root, "dir"))
    await fs.symlink("a.txt", path.join(root, "link"))
    await fs.symlink("nowhere", path.join(root, "dangling"))
    const names = ["a.txt", "empty.txt", "dir", "link", "dangling", "missing.txt", "a.txt/under-a-file"]
    const paths = names.map((name) => path.join(root!, name))

    const many = await Effect.runPromise(nodeHostFs.lstatMany!(paths))
    const single = await Promise.all(
      paths.map((abs) => Effect.runPromise(Effect.orElseSucceed(nodeHostFs.lstat(abs), () => undefined)))
    )
    expect(many).toEqual(single)
    expect(many.map((info) => (info === undefined ? undefined : [info.type, info.size]))).toEqual([
      ["file", 5],
      ["file", 0],
      ["directory", expect.any(Number)],
      ["symlink", "a.txt".length],
      ["symlink", "nowhere".length],
      undefined,
      undefined
    ])
  })

  it("an empty page asks nothing and answers an empty list", async () => {
    expect(await Effect.runPromise(nodeHostFs.lstatMany!([]))).toEqual([])
  })
})
