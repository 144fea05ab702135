/**
 * The Deno host's search workers (adapters/deno/DenoSearch.ts): a worker that fails is an IO_ERROR
 * envelope of that search, never an uncaught error that ends the host, and a good pool then answers; a process that searched ends on its own (no idle worker keeps it alive).
 */
import * as Effect from "effect/Effect"
import { makeDenoSearch } from "../../../adapters/deno/DenoSearch.ts"

const options = {
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
}

const fail = (why: string): never => {
  throw new Error(why)
}

Deno.test("deno/search: a failing search worker is an IO_ERROR of that search; the host goes on and a good pool answers", async () => {
  const root = await Deno.makeTempDir({ prefix: "aw-deno-workers-" })
  try {
    await Deno.writeTextFile(`${root}/a.txt`, "needle\n")
    const broken = makeDenoSearch(
      root,
      2,
      new URL(`data:text/javascript,${encodeURIComponent("throw new Error('broken worker')")}`)
    )
    const failed = await Effect.runPromise(Effect.either(broken.grep(options)))
    if (failed._tag !== "Left") fail("the broken pool answered")
    else {
      if (failed.left.code !== "IO_ERROR") fail(`code ${failed.left.code}`)
      if (!failed.left.message.includes("The search could not finish")) fail(failed.left.message)
    }
    // The same broken pool fails again (fresh workers, same code), still as an envelope.
    const again = await Effect.runPromise(Effect.either(broken.grep(options)))
    if (again._tag !== "Left") fail("the broken pool answered the second time")
    await broken.close()
    const good = makeDenoSearch(root, 2)
    const found = await Effect.runPromise(good.grep(options))
    await good.close()
    if (found.matches.length !== 1 || found.matches[0]!.path !== "a.txt") fail(JSON.stringify(found))
  } finally {
    await Deno.remove(root, { recursive: true })
  }
})

Deno.test("deno/search: a process that searched ends on its own: no idle search worker keeps it alive", async () => {
  const root = await Deno.makeTempDir({ prefix: "aw-deno-exit-" })
  try {
    await Deno.writeTextFile(`${root}/a.txt`, "x\nneedle\n")
    const child = new URL("./support/search_exit_child.ts", import.meta.url).pathname
    const process = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", child, root],
      stdout: "piped",
      stderr: "piped"
    }).spawn()
    const timer = setTimeout(() => process.kill("SIGKILL"), 60_000)
    const output = await process.output()
    clearTimeout(timer)
    const stdout = new TextDecoder().decode(output.stdout).trim()
    if (output.signal !== null) fail(`the child did not end on its own (killed: ${output.signal})`)
    if (output.code !== 0) fail(`exit ${output.code}: ${new TextDecoder().decode(output.stderr)}`)
    if (stdout !== JSON.stringify(["a.txt:2"])) fail(stdout)
  } finally {
    await Deno.remove(root, { recursive: true })
  }
})
