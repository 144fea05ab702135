/**
 * Sub-agent workers inside LM Studio. The plugin's client reaches LM Studio through the plugin runner's
 * own channel (the SDK refuses a second client in a plugin, and a child process cannot share that
 * channel), so a run's loop runs in the plugin's process, beside the client and its loaded model, not in a
 * child process as on the Node and Deno hosts. Everything else is the same: the shared worker
 * (adapters/agentWorker.ts) opens its own runtime with the settings recorded in state.json, lowered, the
 * approval key in memory; state and transcript are written step by step. When the plugin's process ends
 * the run's worker ends with it: the next status says interrupted, and start with the same
 * idempotency_key resumes it, as after a kill -9 on Node. A worker is this process's pid plus a per-run
 * token; another live process's worker (a second plugin process) counts as alive while that process runs.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type { ModelShape } from "../../../core/services/Model.ts"
import type { RunWorkersShape, Worker } from "../../../core/services/RunWorkers.ts"
import { runRunWorker } from "../../agentWorker.ts"
import { openNodeWorkspace } from "../../node/host.ts"
import { processIdentity } from "../../node/identity.ts"

/** An identity "<process>/<token>" is a worker inside that process (NodeRunWorkers and DenoRunWorkers judge it by the process). */
const MARK = "/lmstudio-run:"

/** In-process workers over a Model binding (the plugin's client). */
export const inProcessWorkers = (model: ModelShape): RunWorkersShape & { readonly running: () => number } => {
  const live = new Map<string, { readonly abort: AbortController; readonly done: Promise<number> }>()
  const self = () => processIdentity(process.pid) ?? `pid:${process.pid}`

  /** The model, its pending request cut short when the run is stopped. */
  const stoppable = (signal: AbortSignal): ModelShape => ({
    ...model,
    complete: (request) =>
      Effect.raceFirst(
        model.complete(request),
        Effect.async<never, { readonly _tag: "ModelRejected"; readonly status: null; readonly message: string }>(
          (resume) => {
            const stop = () =>
              resume(Effect.fail({ _tag: "ModelRejected", status: null, message: "the run was stopped" }))
            if (signal.aborted) stop()
            else signal.addEventListener("abort", stop, { once: true })
            return Effect.sync(() => signal.removeEventListener("abort", stop))
          }
        )
      )
  })

  const isLive = (worker: Worker) => {
    if (live.has(worker.identity)) return true
    if (worker.pid === process.pid) return false
    const owner = worker.identity.split(MARK)[0]
    return owner !== undefined && processIdentity(worker.pid) === owner
  }

  return {
    running: () => live.size,
    spawn: (root, runId) =>
      Effect.sync(() => {
        const identity = `${self()}${MARK}${runId}:${Math.random().toString(36).slice(2, 10)}`
        const abort = new AbortController()
        const log = (line: string) =>
          void fs
            .appendFile(path.join(root, ".agentic", "runs", runId, "worker.log"), `${line}\n`)
            .catch(() => undefined)
        const done = runRunWorker(runId, {
          readState: (id) => fs.readFile(path.join(root, ".agentic", "runs", id, "state.json"), "utf8"),
          open: (settings) => openNodeWorkspace(root, settings, undefined, { approvalKey: "memory" }),
          model: stoppable(abort.signal),
          log
        })
          .catch((error) => {
            log(`agent-worker: ${error instanceof Error ? error.message : String(error)}`)
            return 1
          })
          .finally(() => live.delete(identity))
        live.set(identity, { abort, done })
        return { pid: process.pid, identity }
      }),
    alive: (worker) => Effect.sync(() => isLive(worker)),
    stop: (worker) =>
      Effect.promise(async () => {
        const entry = live.get(worker.identity)
        if (entry === undefined) return
        // cancel has recorded the run cancelled: the loop stops at its next step; a pending model request is cut short.
        entry.abort.abort()
        await Promise.race([entry.done, new Promise((resolve) => setTimeout(resolve, 10_000))])
      })
  }
}
