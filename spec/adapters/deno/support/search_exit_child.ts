/**
 * Run by search_workers_test.ts: one grep through the Deno host's Search, then nothing (no close, no
 * Deno.exit). The process must end on its own: the pool's idle workers are unref'd worker_threads
 * Workers (a plain Deno Web Worker cannot be unref'd and would keep it alive).
 */
import * as Effect from "effect/Effect"
import { makeDenoSearch } from "../../../../adapters/deno/DenoSearch.ts"

const search = makeDenoSearch(Deno.args[0]!, 2)
const found = await Effect.runPromise(
  search.grep({
    base: "",
    includeIgnored: false,
    excludes: [],
    include: [],
    source: "needle",
    flags: "m",
    literal: "needle",
    context: 0,
    maxMatches: 10,
    maxLineChars: 200,
    maxFileBytes: 1_000_000
  })
)
console.log(JSON.stringify(found.matches.map((match) => `${match.path}:${match.line}`)))
