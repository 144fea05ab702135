/**
 * Sub-agent workers on Deno: `deno run -A adapters/deno/main.ts agent-worker --root ROOT RUN_ID` through
 * Deno.Command, detached in its own process group (the pattern of the job supervisor in DenoProcesses.ts),
 * started from the toolkit's own folder so Deno finds its deno.json and node_modules. Identity, liveness and
 * stop are those of the Node host (adapters/node/NodeRunWorkers.ts): /proc identity (boot id and start
 * time), SIGTERM to the group, SIGKILL after a grace period; so a run started by one host is judged alike by
 * the other. The worker writes its own diagnostics to the run's worker.log.
 */
import * as Effect from "effect/Effect"
import { toolError } from "../../core/protocol/errors.ts"
import type { RunWorkersShape } from "../../core/services/RunWorkers.ts"
import { procIdentity } from "../procfs.ts"
import { denoProcView } from "./DenoProcesses.ts"

/** The Deno entry the worker runs (the shared CLI's `agent-worker` verb). */
export const DENO_MAIN = new URL("./main.ts", import.meta.url).pathname
/** The toolkit's folder: the worker's working directory (its deno.json and node_modules). */
const TOOLKIT = new URL("../../", import.meta.url).pathname

/** Liveness by identity: off Linux (no /proc) a pid is judged alive while a signal 0 reaches it. */
const identityOf = (pid: number): string | undefined => {
  const identity = procIdentity(denoProcView, pid)
  if (identity !== undefined || Deno.build.os === "linux") return identity
  try {
    Deno.kill(pid, "SIGCONT")
    return `pid:${pid}`
  } catch {
    return undefined
  }
}

const signal = (pid: number, name: Deno.Signal) => {
  try {
    Deno.kill(-pid, name)
  } catch {
    try {
      Deno.kill(pid, name)
    } catch {
      // gone
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const denoRunWorkers: RunWorkersShape = {
  spawn: (root, runId) =>
    Effect.try({
      try: () => {
        const child = new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", "--quiet", DENO_MAIN, "agent-worker", "--root", root, runId],
          cwd: TOOLKIT,
          detached: Deno.build.os !== "windows",
          stdin: "null",
          stdout: "null",
          stderr: "null"
        }).spawn()
        child.unref()
        return { pid: child.pid, identity: identityOf(child.pid) ?? `pid:${child.pid}` }
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
  alive: (worker) => Effect.sync(() => identityOf(worker.pid) === worker.identity.split("/")[0]),
  stop: (worker) =>
    Effect.promise(async () => {
      if (identityOf(worker.pid) !== worker.identity) return
      signal(worker.pid, "SIGTERM")
      for (let i = 0; i < 40 && identityOf(worker.pid) === worker.identity; i++) await sleep(50)
      if (identityOf(worker.pid) === worker.identity) signal(worker.pid, "SIGKILL")
      // cancel answers once the worker is gone
      for (let i = 0; i < 100 && identityOf(worker.pid) === worker.identity; i++) await sleep(50)
    })
}
