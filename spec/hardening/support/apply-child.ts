/**
 * A real child process for the concurrent-commit specs: opens the workspace given on argv (which runs
 * start-up recovery, as every CLI call and server start does) and commits one workspace_edit apply of
 * the operations in argv[2] (JSON) in Auto mode, printing the envelope. Test-only, as a slow disk:
 * AW_PAUSE_MS holds each file step that long, and AW_PAUSE_UNTIL holds the first file step until that
 * file exists (the test's signal), so other processes start while this commit is mid-way.
 */
import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { nodeHostFs } from "../../../adapters/node/NodeHostFs.ts"
import { nodeWorkspaceKeyLayer } from "../../../adapters/node/NodeKey.ts"
import { hostLayer, startHost } from "../../../core/runtime.ts"
import { decodeSettings } from "../../../core/settings/settings.ts"
import { CommitHooks } from "../../../core/tools/edit/commit.ts"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const main = async () => {
  const [root, operations] = process.argv.slice(2)
  const pauseMs = Number(process.env["AW_PAUSE_MS"] ?? "0")
  const until = process.env["AW_PAUSE_UNTIL"]
  const mark = process.env["AW_PAUSED_MARK"]
  let first = true
  const settings = Either.getOrThrow(decodeSettings({ permissionMode: 2 }))
  const hooks = Layer.succeed(CommitHooks, {
    reached: (point) =>
      !point.label.startsWith("write ")
        ? Effect.void
        : Effect.promise(async () => {
            if (first && until !== undefined) {
              first = false
              if (mark !== undefined) fs.writeFileSync(mark, "paused")
              while (!fs.existsSync(until)) await sleep(20)
            }
            if (pauseMs > 0) await sleep(pauseMs)
          })
  })
  const real = fs.realpathSync(root!)
  const runtime = await startHost(
    Layer.merge(
      // The workspace's own key, as every Node adapter uses: the journal this child writes verifies in the next process.
      hostLayer({
        root: real,
        runtime: "node",
        platform: process.platform,
        fs: nodeHostFs,
        key: nodeWorkspaceKeyLayer(real)
      }),
      hooks
    ),
    settings
  )
  const envelope = await runtime.call("workspace_edit", { action: "apply", operations: JSON.parse(operations!) })
  process.stdout.write(JSON.stringify(envelope))
  await runtime.dispose()
}

void main()
