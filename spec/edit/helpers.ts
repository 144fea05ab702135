/** Helpers of the workspace_edit spec: calls, trees without .agentic/, and a workspace with commit fault points. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { layer as nodeLayer } from "../../adapters/node/host.ts"
import type { Envelope } from "../../core/protocol/envelope.ts"
import type { ToolError } from "../../core/protocol/errors.ts"
import { startHost, type WorkspaceRuntime } from "../../core/runtime.ts"
import { decodeSettings } from "../../core/settings/settings.ts"
import { CommitHooks, type CommitPoint } from "../../core/tools/edit/commit.ts"
import { snapshotTree, type TempWorkspace } from "../support/workspace.ts"

/** One workspace_edit call. */
export const edit = (ws: { call: TempWorkspace["call"] }, args: Record<string, unknown>): Promise<Envelope> =>
  ws.call("workspace_edit", args)

/** `data` of an envelope, loosely typed for assertions. */
export const dataOf = (envelope: Envelope): any => envelope.data as any

/** The workspace tree without .agentic/ (what a user sees). */
export const userTree = async (dir: string): Promise<Record<string, string>> => {
  const all = await snapshotTree(dir)
  return Object.fromEntries(Object.entries(all).filter(([rel]) => !rel.startsWith(".agentic")))
}

/** Raw bytes of a workspace file. */
export const bytesOf = (dir: string, rel: string) => fs.readFile(path.join(dir, rel))

/** Opens a runtime on `dir` whose commits call `reached` at every fault point. */
export const openHooked = async (
  dir: string,
  settings: Record<string, unknown>,
  reached: (point: CommitPoint) => Effect.Effect<void, ToolError>
): Promise<WorkspaceRuntime> => {
  const decoded = decodeSettings(settings)
  if (Either.isLeft(decoded)) throw new Error(decoded.left)
  const root = await fs.realpath(dir)
  // The Node host (with the workspace's own key, as every Node adapter uses: journals written here verify in
  // later processes) carrying the commit's fault hooks.
  return startHost(Layer.merge(nodeLayer(root), Layer.succeed(CommitHooks, { reached })), decoded.right)
}

/** Writes files into a directory. */
export const writeFiles = async (dir: string, files: Record<string, string | Uint8Array>) => {
  for (const [rel, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true })
    await fs.writeFile(path.join(dir, rel), content)
  }
}

export { Effect }
