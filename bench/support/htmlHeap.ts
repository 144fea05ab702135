/**
 * The live heap of one HTML extraction of bench/pages.ts' article page, run in a child process with
 * --expose-gc and --no-concurrent-recompilation (`node --expose-gc --no-concurrent-recompilation --import tsx
 * bench/support/htmlHeap.ts <stream|tree> <bytes>`), printed as JSON. Without the second flag, optimized code
 * that a background compile finished during the measured run counted in `heapUsed`: the stream's peak was 2.1-2.4
 * MB in some runs and 3.7-4.0 MB in others of the same code; with it, compiles finish during the warm-up (2.2 MB
 * in eight runs of eight). The page's bytes are made and parse5 is loaded before the baseline, so neither counts; the figure is
 * the largest `heapUsed` after a full `gc()` minus that baseline:
 * - stream: the extractor workspace_research fetch uses (core/tools/research/extract.ts `extractHtmlBytes`'s
 *   steps), sampled at each 64 KiB chunk boundary and after the end with the result held;
 * - tree: the tree-based extractor it replaced (spec/support/htmlOracle.ts), sampled after decoding the
 *   whole text, after parse5's tree is built, and after the reduction with the tree still held.
 */
import * as parse5 from "parse5"
import { htmlStream, type Parse5Module } from "../../core/tools/research/stream.ts"
import { extractDocument } from "../../spec/support/htmlOracle.ts"
import type { Node } from "../../core/tools/research/html.ts"
import { articlePage } from "../pages.ts"

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined || !process.execArgv.includes("--no-concurrent-recompilation"))
  throw new Error("run with node --expose-gc --no-concurrent-recompilation")
const [which, size] = process.argv.slice(2)
const bytes = Buffer.from(articlePage(Number(size ?? 1_000_000)))
const url = "http://127.0.0.1/page"
const CHUNK = 64 * 1024

const used = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

// Warm-up on the same page, twice: code compiled and optimized (optimized code counts in heapUsed) and caches
// filled before the baseline, so the figure is the extraction's data.
const warmUp = () => {
  const warm = htmlStream(parse5 as unknown as Parse5Module, url)
  warm.write(new TextDecoder().decode(bytes))
  warm.end()
  extractDocument(parse5.parse(new TextDecoder().decode(bytes)) as unknown as Node, url)
}
warmUp()
warmUp()

const base = used()
let peak = 0
const sample = () => {
  peak = Math.max(peak, used() - base)
}
let chars = 0
if (which === "stream") {
  const stream = htmlStream(parse5 as unknown as Parse5Module, url)
  const decoder = new TextDecoder("utf-8")
  for (let start = 0; start < bytes.length; start += CHUNK) {
    stream.write(decoder.decode(bytes.subarray(start, start + CHUNK), { stream: true }))
    sample()
  }
  stream.write(decoder.decode())
  const result = stream.end()
  sample()
  chars = result.text.length
} else {
  const text = new TextDecoder("utf-8").decode(bytes)
  sample()
  const document = parse5.parse(text) as unknown as Node
  sample()
  const result = extractDocument(document, url)
  sample()
  // The tree is still referenced here, as it was while the reduction ran.
  chars = result.text.length + (document.childNodes === undefined ? 0 : 0)
}
console.log(JSON.stringify({ which, page: bytes.length, peak, chars }))
