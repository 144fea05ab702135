/**
 * Law: paging any listing or read with any page size yields exactly the whole, in order, once.
 * Oracle: the same action asked for in one page (limit 10000, a budget that never cuts).
 */
import fc from "fast-check"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { allPages, ok } from "../spec/inspect/support.ts"
import { openWorkspace, type TempWorkspace } from "../spec/support/workspace.ts"
import { runs } from "./runs.ts"

const seed = Number(process.env.FC_SEED ?? 20261130)
let ws: TempWorkspace
beforeAll(async () => {
  ws = await openWorkspace({ maxToolResultChars: 1_000_000 })
})
afterAll(() => ws.dispose())

const line = fc.string({ unit: fc.constantFrom("a", "b", " ", "|", "1", "é", "\t", "\r"), maxLength: 12 })
const ending = fc.constantFrom("\n", "\r\n")

describe("paging yields the whole, in order, once", () => {
  it("read: any file, any page size", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(line, ending), { maxLength: 60 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 25 }),
        async (lines, finalNewline, size) => {
          let content = lines.map(([text, end]) => `${text.replace(/\r/g, "")}${end}`).join("")
          if (!finalNewline && content.endsWith("\n")) content = content.replace(/\r?\n$/, "")
          await ws.write("file.txt", content)
          const whole = await ok(ws, { action: "read", path: "file.txt", limit: 10_000 })
          const pages = await allPages(ws, { action: "read", path: "file.txt" }, size)
          expect(pages.map((page) => page.text).join("")).toBe(whole.data.text)
          // Each page starts where the previous one ended: no line twice, none skipped.
          let expected = 0
          for (const page of pages) {
            expect(page.offset).toBe(expected)
            expected = page.nextOffset ?? whole.data.totalLines
          }
          expect(expected).toBe(whole.data.totalLines)
        }
      ),
      { seed, numRuns: runs(25) }
    )
  })

  it("list and find: any tree, any page size", async () => {
    const name = fc.stringMatching(/^[a-c]{1,3}$/)
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.array(name, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("/")),
          { maxLength: 25 }
        ),
        fc.integer({ min: 1, max: 12 }),
        async (files, size) => {
          const root = path.join(ws.dir, "tree")
          await fs.rm(root, { recursive: true, force: true })
          await fs.mkdir(root, { recursive: true })
          for (const file of files) {
            await fs.mkdir(path.dirname(path.join(root, file)), { recursive: true }).catch(() => undefined)
            await fs.writeFile(path.join(root, file), "x").catch(() => undefined)
          }
          for (const args of [
            { action: "list", path: "tree", depth: 10 },
            { action: "find", pattern: "**", path: "tree" }
          ]) {
            const whole = await ok(ws, { ...args, limit: 10_000 })
            const pages = await allPages(ws, args, size)
            const paged = pages.flatMap((page) => page.entries.map((entry: any) => entry.path))
            expect(paged).toEqual(whole.data.entries.map((entry: any) => entry.path))
            expect(new Set(paged).size).toBe(paged.length)
          }
        }
      ),
      { seed, numRuns: runs(15) }
    )
  })

  it("search: any matches, any page size", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom("hit", "miss", "HIT x"), { maxLength: 8 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 10 }),
        async (files, size) => {
          const root = path.join(ws.dir, "s")
          await fs.rm(root, { recursive: true, force: true })
          await fs.mkdir(root, { recursive: true })
          for (const [index, lines] of files.entries())
            await fs.writeFile(path.join(root, `f${index}.txt`), lines.join("\n"))
          const args = { action: "search", query: "hit", path: "s" }
          const whole = await ok(ws, { ...args, limit: 10_000 })
          const pages = await allPages(ws, args, size)
          expect(pages.flatMap((page) => page.matches)).toEqual(whole.data.matches)
          expect(whole.data.total).toBe(files.flat().filter((text) => text.toLowerCase().includes("hit")).length)
        }
      ),
      { seed, numRuns: runs(15) }
    )
  })
})
