/**
 * Run by search_deadline_test.ts with `deno run` (as the Deno host runs: `deno test` type-checks every
 * Web Worker module as it starts, which on a loaded machine alone can outlast a short deadline). One
 * runtime, several calls: the ReDoS searches, then ordinary ones; prints the envelopes' data as JSON lines.
 */
import { openDenoWorkspace } from "../../../../adapters/deno/host.ts"

const [root] = Deno.args
const opened = await openDenoWorkspace(root!, { searchTimeoutMs: 2000 })
if ("_tag" in opened) throw new Error(opened.reason)
const calls = [
  { action: "search", query: "^(a+)+$", regex: true, path: "" },
  { action: "search", query: "^(a+)+$", regex: true, path: "victim.txt" },
  { action: "search", query: "aaa", path: "ok.txt" },
  { action: "read", path: "ok.txt" }
]
for (const args of calls) {
  const envelope = await opened.call("workspace_inspect", args)
  console.log(JSON.stringify({ ok: envelope.ok, data: envelope.data }))
}
await opened.dispose()
// As the Deno CLI does (adapters/deno/main.ts): a terminated worker thread may still be winding down.
Deno.exit(0)
