/**
 * Issue 10 §1 for reads: the store checked `.agentic/<rel>` and then read it again by path, so a folder
 * swapped for a symlink between the two made the read follow it. An append then read a file outside the
 * root and wrote its content into the note (found by the state-swap race in CI: a note began with the
 * outside file's text). Store reads now go through the host's directory handles like its writes: the
 * final name is opened without following a link, and every folder on the way is held, not named again.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { afterEach, describe, expect, it } from "vitest"
import { nodeConfinedFs } from "../../adapters/node/confinedFs.ts"
import { makeTempDir } from "../support/workspace.ts"

const dirs: Array<string> = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

const setup = async () => {
  const root = await makeTempDir("aw-read-swap-")
  const outside = await makeTempDir("aw-read-swap-outside-")
  dirs.push(root, outside)
  await fs.mkdir(path.join(root, ".agentic", "notes"), { recursive: true })
  await fs.writeFile(path.join(root, ".agentic", "notes", "n0.md"), "inside\n")
  await fs.writeFile(path.join(outside, "n0.md"), "outside secret\n")
  return { root, outside }
}

describe("a store read never follows a folder or file swapped for a symlink (issue 10 §1)", () => {
  it("the Node host's confined port reads the real file and refuses a symlinked folder or final name (Escape)", async () => {
    const confined = nodeConfinedFs
    expect(confined?.readFile, "the Node host reads .agentic/ through directory handles").toBeDefined()
    const { root, outside } = await setup()
    const read = (rel: string) => Effect.runPromise(Effect.either(confined!.readFile!(root, rel)))
    const real = await read(".agentic/notes/n0.md")
    expect(Either.isRight(real) && new TextDecoder().decode(real.right)).toBe("inside\n")
    // The folder swapped for a symlink to the outside, as the racer does.
    await fs.rename(path.join(root, ".agentic", "notes"), path.join(root, ".agentic", "notes.aside"))
    await fs.symlink(outside, path.join(root, ".agentic", "notes"))
    const throughFolder = await read(".agentic/notes/n0.md")
    expect(Either.isLeft(throughFolder) && throughFolder.left.reason).toBe("Escape")
    // The final name a symlink to the outside file.
    await fs.unlink(path.join(root, ".agentic", "notes"))
    await fs.rename(path.join(root, ".agentic", "notes.aside"), path.join(root, ".agentic", "notes"))
    await fs.rm(path.join(root, ".agentic", "notes", "n0.md"))
    await fs.symlink(path.join(outside, "n0.md"), path.join(root, ".agentic", "notes", "n0.md"))
    const throughName = await read(".agentic/notes/n0.md")
    expect(Either.isLeft(throughName) && throughName.left.reason).toBe("Escape")
    const missing = await read(".agentic/notes/none.md")
    expect(Either.isLeft(missing) && missing.left.reason).toBe("NotFound")
  })
})
