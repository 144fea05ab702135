/**
 * Law: the Node Search (worker threads, sync reads, byte prefilters) agrees with the host-free
 * fallback over HostFs on every walk and every search. Oracle: Search.layerHostFs's implementation.
 */
import fc from "fast-check"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeHostFs } from "../adapters/node/NodeHostFs.ts"
import { makeNodeSearch } from "../adapters/node/NodeSearch.ts"
import { makeHostFsSearch, type GrepOptions } from "../core/services/Search.ts"
import { escapeRegExp, requiredLiteral } from "../core/services/searchCore.ts"
import { makeTempDir } from "../spec/support/workspace.ts"
import { runs } from "./runs.ts"

const seed = Number(process.env.FC_SEED ?? 20261130)
let root: string
let node: ReturnType<typeof makeNodeSearch>
beforeAll(async () => {
  root = await makeTempDir("aw-conformance-")
  node = makeNodeSearch(root, 2)
})
afterAll(async () => {
  await node.close()
  await fs.rm(root, { recursive: true, force: true })
})

const word = fc.constantFrom(
  "alpha",
  "Beta",
  "gamma",
  "ALPHA",
  "x",
  "",
  "\ufeffalpha",
  "tab\there",
  "é alpha",
  // Two hits on a line, a lone CR, and lines long enough to be clipped around the match (ASCII and not).
  "alphaalpha x alpha",
  "\r",
  `${"x".repeat(600)}alpha${"y".repeat(300)}`,
  "ééé alpha ééé ".repeat(60)
)
const file = fc.record({
  dir: fc.constantFrom("", "src", "src/deep", "ignored", "lib"),
  name: fc.constantFrom("a.ts", "b.md", "c.txt", "d.ts"),
  lines: fc.array(word, { maxLength: 12 }),
  crlf: fc.boolean(),
  binary: fc.boolean()
})

describe("the Node search agrees with the host-free one", () => {
  it("walks and greps", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(file, { maxLength: 12 }),
        fc.constantFrom("alpha", "Alpha", "^alpha$", "a.p", "gamma|beta", "alp+ha", "(al)?pha\\s*x?"),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 1, max: 30 }),
        // maxFileBytes: below, at and above the sizes of the files (the worker reads one byte past it).
        fc.constantFrom(1 << 20, 0, 40, 200),
        async (files, query, regex, insensitive, context, cap, maxFileBytes) => {
          await fs.rm(root, { recursive: true, force: true })
          await fs.mkdir(root, { recursive: true })
          await fs.writeFile(path.join(root, ".gitignore"), "ignored/\n*.md\n!keep.md\n")
          for (const spec of files) {
            const rel = spec.dir === "" ? spec.name : `${spec.dir}/${spec.name}`
            await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true })
            const text = spec.lines.join(spec.crlf ? "\r\n" : "\n")
            await fs.writeFile(
              path.join(root, rel),
              spec.binary ? Buffer.concat([Buffer.from(text), Buffer.from([0])]) : text
            )
          }
          const fallback = makeHostFsSearch(nodeHostFs, root)
          for (const includeIgnored of [false, true]) {
            const walk = { base: "", includeIgnored, excludes: ["lib/d.ts"], directories: true, maxEntries: 1000 }
            expect(await Effect.runPromise(node.walk(walk))).toEqual(await Effect.runPromise(fallback.walk(walk)))
            const options: GrepOptions = {
              base: "",
              includeIgnored,
              excludes: ["lib/d.ts"],
              include: [],
              source: regex ? query : escapeRegExp(query),
              flags: insensitive ? "mi" : "m",
              ...((regex ? requiredLiteral(query) : query) === undefined
                ? {}
                : { literal: regex ? requiredLiteral(query)! : query }),
              context,
              maxMatches: cap,
              maxLineChars: 500,
              maxFileBytes
            }
            const [a, b] = [
              await Effect.runPromise(node.grep(options)),
              await Effect.runPromise(fallback.grep(options))
            ]
            expect(a.matches).toEqual(b.matches)
            if (!a.capped && !b.capped)
              expect([a.filesSearched, a.binarySkipped, a.tooLarge, a.unreadable]).toEqual([
                b.filesSearched,
                b.binarySkipped,
                b.tooLarge,
                b.unreadable
              ])
          }
        }
      ),
      { seed, numRuns: runs(40) }
    )
  })
})
