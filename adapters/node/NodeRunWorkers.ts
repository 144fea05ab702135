/**
 * Sub-agent workers on Node: `node bin/agentic-workspace.js agent-worker --root ROOT RUN_ID`, detached in
 * its own process group, output to the run's worker.log. The bin runs the sources through tsx in a
 * checkout and dist/ when installed, so the worker is always this toolkit's own code. The bin is found from
 * this code's own location (runtimeFiles.ts), the sources' and the flat dist/'s alike.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { toolError } from "../../core/protocol/errors.ts"
import type { RunWorkersShape } from "../../core/services/RunWorkers.ts"
import { processIdentity } from "./identity.ts"
import { WORKER_BIN as BIN } from "./runtimeFiles.ts"

const signal = (pid: number, name: NodeJS.Signals) => {
  try {
    process.kill(-pid, name)
  } catch {
    try {
      process.kill(pid, name)
    } catch {
      // gone
    }
  }
}

export const nodeRunWorkers: RunWorkersShape = {
  spawn: (root, runId) =>
    Effect.try({
      try: () => {
        const dir = path.join(root, ".agentic", "runs", runId)
        if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing; reinstall the package`)
        const log = fs.openSync(path.join(dir, "worker.log"), "a")
        // The worker must not inherit a key path or model key it was not given: the environment is the host's.
        const child = spawn(process.execPath, [BIN, "agent-worker", "--root", root, runId], {
          cwd: root,
          detached: true,
          stdio: ["ignore", log, log],
          windowsHide: true
        })
        fs.closeSync(log)
        child.unref()
        if (child.pid === undefined) throw new Error("no pid")
        return { pid: child.pid, identity: processIdentity(child.pid) ?? String(child.pid) }
      },
      catch: (error) =>
        toolError(
          "IO_ERROR",
          `The run's worker could not be started: ${error instanceof Error ? error.message : String(error)}.`,
          { runId }
        )
    }),
  // An identity "<process>/<token>" is a worker inside that process (the LM Studio plugin's runs): alive while the
  // process is; stop never signals such a process (its run stops itself at its next step once cancelled).
  alive: (worker) =>
    Effect.sync(
      () =>
        (processIdentity(worker.pid) ?? String(worker.pid)) === worker.identity.split("/")[0] && isRunning(worker.pid)
    ),
  stop: (worker) =>
    Effect.promise(async () => {
      if (processIdentity(worker.pid) !== worker.identity) return
      signal(worker.pid, "SIGTERM")
      for (let i = 0; i < 40 && isRunning(worker.pid); i++) await new Promise((resolve) => setTimeout(resolve, 50))
      if (isRunning(worker.pid)) signal(worker.pid, "SIGKILL")
      // cancel answers once the worker is gone
      for (let i = 0; i < 100 && isRunning(worker.pid); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    })
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as { code?: string }).code === "EPERM"
  }
  // A zombie (exited, not yet reaped) counts as ended.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]
    return state !== "Z" && state !== "X"
  } catch {
    return true
  }
}
