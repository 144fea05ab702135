/** Arbitraries shared by the workspace_edit properties: a small starting tree and transactions over it. */
import fc from "fast-check"
import * as fs from "node:fs/promises"
import * as path from "node:path"

/** Paths the generated operations pick from (some start absent). */
export const NAMES = ["a.txt", "b.txt", "dir/c.txt", "dir/sub/d.txt", "e.bin", "new/f.txt"] as const

const text = fc.string({ unit: fc.constantFrom("a", "b", "x", " ", "\n", "\r\n", "é"), maxLength: 40 })
const binary = fc.uint8Array({ minLength: 1, maxLength: 40 }).map((bytes) => Uint8Array.from([0, ...bytes]))

/** One starting file: its bytes (text in either line-ending style, or binary) and its mode. */
export interface StartFile {
  readonly bytes: Uint8Array
  readonly mode: number
}

/** A starting tree: a subset of NAMES with contents and modes. */
export const startTree = fc
  .tuple(
    ...NAMES.map(() =>
      fc.option(
        fc.record({
          bytes: fc.oneof(
            text.map((t) => new TextEncoder().encode(t)),
            binary
          ),
          mode: fc.constantFrom(0o644, 0o755, 0o600)
        }),
        { nil: undefined, freq: 3 }
      )
    )
  )
  .map(
    (files) =>
      Object.fromEntries(NAMES.map((name, i) => [name, files[i]]).filter(([, file]) => file !== undefined)) as Record<
        string,
        StartFile
      >
  )

const name = fc.constantFrom(...NAMES)
const token = fc.constantFrom("a", "b", "x", "\n", "a\n", "b b")

/** One operation over NAMES (it may well be invalid for a given tree: the laws cover that case too). */
export const operation = fc.oneof(
  fc.record({
    type: fc.constant("create"),
    path: name,
    content: text,
    overwrite: fc.boolean(),
    allow_line_numbers: fc.constant(true)
  }),
  fc.record({
    type: fc.constant("rewrite"),
    path: name,
    content: text,
    create_if_missing: fc.boolean(),
    allow_line_numbers: fc.constant(true)
  }),
  fc.record({
    type: fc.constant("replace"),
    path: name,
    search: token,
    replacement: text,
    expected_matches: fc.integer({ min: 1, max: 2 }),
    allow_line_numbers: fc.constant(true)
  }),
  fc.record({
    type: fc.constant("splice"),
    path: name,
    start_line: fc.integer({ min: 1, max: 4 }),
    delete_count: fc.integer({ min: 0, max: 2 }),
    content: text,
    allow_line_numbers: fc.constant(true)
  }),
  fc.record({ type: fc.constant("copy"), from: name, to: name, overwrite: fc.boolean() }),
  fc.record({ type: fc.constant("move"), from: name, to: name, overwrite: fc.boolean() }),
  fc.record({ type: fc.constant("delete"), path: name, ignore_missing: fc.boolean() }),
  fc.record({ type: fc.constantFrom("mkdir"), path: fc.constantFrom("made", "made/deeper", "dir/sub2") })
)

/** A transaction of 1 to 6 operations. */
export const transaction = fc.array(operation, { minLength: 1, maxLength: 6 })

/** Writes a starting tree into a directory. */
export const writeTree = async (dir: string, files: Record<string, StartFile>) => {
  for (const [rel, file] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true })
    await fs.writeFile(path.join(dir, rel), file.bytes)
    await fs.chmod(path.join(dir, rel), file.mode)
  }
}

/** Every regular file below `dir` (outside .agentic/) with its bytes (base64) and mode. */
export const filesOf = async (dir: string): Promise<Record<string, string>> => {
  const out: Record<string, string> = {}
  const walk = async (current: string) => {
    for (const entry of await fs.readdir(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name)
      const rel = path.relative(dir, full)
      if (rel === ".agentic") continue
      if (entry.isDirectory()) await walk(full)
      else
        out[rel] = `${((await fs.stat(full)).mode & 0o777).toString(8)}:${(await fs.readFile(full)).toString("base64")}`
    }
  }
  await walk(dir)
  return out
}

/** Every directory below `dir` (outside .agentic/). */
export const dirsOf = async (dir: string): Promise<Array<string>> => {
  const out: Array<string> = []
  const walk = async (current: string) => {
    for (const entry of await fs.readdir(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name)
      const rel = path.relative(dir, full)
      if (rel === ".agentic" || !entry.isDirectory()) continue
      out.push(rel)
      await walk(full)
    }
  }
  await walk(dir)
  return out.sort()
}
