/**
 * Huge files (issue 10 §5): the peak resident memory of a 10-line read and of a stat of a 500 MB file,
 * and a 600 MB file's first page, each in a fresh process beside a baseline process that only opens the
 * workspace (same run). Prints figures; never fails on them. Run: npm run bench:huge
 * (writes about 1.1 GB of temporary files, removed at the end).
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { promisify } from "node:util"
import { makeTempDir } from "../spec/support/workspace.ts"

const run = promisify(execFile)
const MB = 1024 * 1024
const CHILD = path.join(import.meta.dirname, "support/huge-child.ts")
const TSX = path.join(import.meta.dirname, "../node_modules/.bin/tsx")

/** Writes a text file of `bytes` bytes in lines of about 80 characters, 8 MiB at a time. */
const writeText = async (file: string, bytes: number) => {
  const handle = await fs.open(file, "w")
  const line = `${"the quick brown fox jumps over the lazy dog ".repeat(2).slice(0, 79)}\n`
  const block = Buffer.from(line.repeat(Math.floor((8 * MB) / line.length)))
  let written = 0
  while (written < bytes) {
    const part = block.subarray(0, Math.min(block.length, bytes - written))
    await handle.write(part)
    written += part.length
  }
  await handle.close()
}

const measure = async (root: string, call: Record<string, unknown> | "none") => {
  const { stdout } = await run(TSX, [CHILD, root, call === "none" ? "none" : JSON.stringify(call)], {
    maxBuffer: 16 * MB
  })
  return JSON.parse(stdout) as { ok: boolean; summary: string; maxRssBytes: number }
}

const main = async () => {
  const root = await makeTempDir("aw-bench-huge-")
  try {
    await writeText(path.join(root, "500mb.log"), 500 * MB)
    await writeText(path.join(root, "600mb.log"), 600 * MB)
    await fs.writeFile(path.join(root, "small.txt"), "one\ntwo\n")
    const rows: Array<[string, { ok: boolean; summary: string; maxRssBytes: number }]> = [
      ["baseline: open the workspace only", await measure(root, "none")],
      ["baseline: read a 2-line file", await measure(root, { action: "read", path: "small.txt" })],
      ["read 10 lines of a 500 MB file", await measure(root, { action: "read", path: "500mb.log", limit: 10 })],
      ["stat of a 500 MB file", await measure(root, { action: "stat", path: "500mb.log" })],
      ["read page 1 of a 600 MB file", await measure(root, { action: "read", path: "600mb.log" })]
    ]
    const base = rows[0]![1].maxRssBytes
    console.log("huge files: peak resident memory (maxRSS) of one call in a fresh process")
    for (const [label, row] of rows) {
      console.log(
        `${label.padEnd(36)} ${(row.maxRssBytes / MB).toFixed(1).padStart(8)} MB  (${(row.maxRssBytes / base).toFixed(2)}x baseline)  ok=${row.ok}  ${row.summary}`
      )
    }
  } finally {
    await fs.rm(root, { recursive: true, force: true })
  }
}

await main()
