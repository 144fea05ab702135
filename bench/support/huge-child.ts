/**
 * One measured call of bench/huge.bench.ts, in its own process so its peak resident memory is its own:
 * opens the workspace at argv[2] (Manual mode) and makes the workspace_inspect call in argv[3] (JSON),
 * then prints { ok, summary, maxRssBytes } as JSON. With argv[3] "none" it only opens the workspace
 * (the baseline).
 */
import { openNodeWorkspace } from "../../adapters/node/host.ts"

const main = async () => {
  const [root, call] = process.argv.slice(2)
  const opened = await openNodeWorkspace(root!, { permissionMode: 0 })
  if ("_tag" in opened) throw new Error(`workspace did not open: ${opened.reason}`)
  let result: { ok: boolean; summary: string } = { ok: true, summary: "opened only" }
  if (call !== "none") {
    const envelope = await opened.call("workspace_inspect", JSON.parse(call!))
    result = { ok: envelope.ok, summary: envelope.summary.slice(0, 160) }
  }
  await opened.dispose()
  // maxRSS is in kilobytes.
  process.stdout.write(JSON.stringify({ ...result, maxRssBytes: process.resourceUsage().maxRSS * 1024 }))
}

void main()
