/**
 * `mkdir -p` for folders named by the user's environment (the key store, the code cache), made one level at a
 * time. Node 20's `{ recursive: true }` never returns where a parent exists but refuses a child with ENOENT
 * (a path under /proc, e.g. XDG_STATE_HOME=/proc/none): it makes the parent (EEXIST), tries the child again
 * (ENOENT) and goes round for ever, both sync and async. Here each level is tried at most twice, so such a
 * path fails with the system's error instead.
 */
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"

const codeOf = (error: unknown) => (error as { code?: string }).code

/** Creates `dir` and any missing parents with `mode`; a folder already there is fine, anything else there fails EEXIST. */
export const makeDirs = async (dir: string, mode: number): Promise<void> => {
  try {
    await fsp.mkdir(dir, { mode })
    return
  } catch (error) {
    if (codeOf(error) === "EEXIST" && (await fsp.stat(dir)).isDirectory()) return
    const parent = path.dirname(dir)
    if (codeOf(error) !== "ENOENT" || parent === dir) throw error
    await makeDirs(parent, mode)
  }
  try {
    await fsp.mkdir(dir, { mode })
  } catch (error) {
    if (codeOf(error) === "EEXIST" && (await fsp.stat(dir)).isDirectory()) return
    throw error
  }
}

/** makeDirs, synchronously. */
export const makeDirsSync = (dir: string, mode: number): void => {
  try {
    fs.mkdirSync(dir, { mode })
    return
  } catch (error) {
    if (codeOf(error) === "EEXIST" && fs.statSync(dir).isDirectory()) return
    const parent = path.dirname(dir)
    if (codeOf(error) !== "ENOENT" || parent === dir) throw error
    makeDirsSync(parent, mode)
  }
  try {
    fs.mkdirSync(dir, { mode })
  } catch (error) {
    if (codeOf(error) === "EEXIST" && fs.statSync(dir).isDirectory()) return
    throw error
  }
}
