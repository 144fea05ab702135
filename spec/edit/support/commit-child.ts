/**
 * A real child process for the crash test: commits a transaction in the workspace given on argv and,
 * when AW_CRASH_AT names a commit fault point, SIGKILLs itself there. Test-only: the fault point is
 * injected as a CommitHooks layer, never read from the environment by core/. The test bundles this
 * file once (esbuild, as tsx uses) so that each of the ~55 children starts quickly.
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

const main = async () => {
  const [root, transactionId] = process.argv.slice(2)
  const crashAt = Number(process.env["AW_CRASH_AT"] ?? "-1")
  const settings = Either.getOrThrow(decodeSettings({ permissionMode: 2 }))
  const hooks = Layer.succeed(CommitHooks, {
    reached: (point) =>
      point.index === crashAt
        ? Effect.zipRight(
            Effect.sync(() => process.kill(process.pid, "SIGKILL")),
            Effect.never
          )
        : Effect.void
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
  const envelope = await runtime.call("workspace_edit", { action: "commit", transaction_id: transactionId })
  process.stdout.write(JSON.stringify(envelope))
  await runtime.dispose()
}

void main()
