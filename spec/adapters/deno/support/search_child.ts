/**
 * Run by spec/adapters/deno-search-parity.test.ts with `deno run`: the Deno host's Search over the tree
 * at Deno.args[0] answers the queries in the JSON file Deno.args[1] (with git's candidate list where
 * Deno.args[2] opts in), printed as one JSON array (with the
 * candidate source of each), so the spec compares them with the Node host's answers to the same queries.
 */
import * as Effect from "effect/Effect"
import { makeDenoSearch } from "../../../../adapters/deno/DenoSearch.ts"

const [root, queriesFile, gitFor] = Deno.args
const queries = JSON.parse(await Deno.readTextFile(queriesFile!)) as Array<{
  kind: "walk" | "grep" | "grepText"
  options: Record<string, unknown>
}>
// A third argument opts in to git's candidate list, as {"list": boolean, "search": boolean}.
const search =
  gitFor === undefined
    ? makeDenoSearch(root!)
    : makeDenoSearch(root!, undefined, undefined, undefined, JSON.parse(gitFor))
const out: Array<unknown> = []
for (const query of queries) {
  const options = query.options
  const result =
    query.kind === "walk"
      ? await Effect.runPromise(search.walk(options as never))
      : query.kind === "grep"
        ? await Effect.runPromise(search.grep(options as never))
        : await Effect.runPromise(search.grepText(options as never))
  const source =
    query.kind === "grepText"
      ? undefined
      : await Effect.runPromise(
          search.candidatesFrom(
            (query.kind === "walk"
              ? options
              : { ...options, directories: false, maxEntries: Number.MAX_SAFE_INTEGER }) as never,
            query.kind === "walk" ? "list" : "search"
          )
        )
  out.push({ source, result })
}
await search.close()
console.log(JSON.stringify(out))
Deno.exit(0)
