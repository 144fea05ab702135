/**
 * The sub-agent worker on Deno (`agent-worker --root ROOT RUN_ID`, started by DenoRunWorkers): the shared
 * worker (adapters/agentWorker.ts) over the Deno host, the approval key held in memory, the model reached
 * through modelBaseUrl with Deno's fetch (DenoModel.ts). Its diagnostics go to the run's worker.log.
 */
import { runRunWorker } from "../agentWorker.ts"
import { denoModel } from "./DenoModel.ts"
import { openDenoWorkspace } from "./host.ts"

export const runWorker = (root: string, runId: string): Promise<number> => {
  const dir = `${root}/.agentic/runs/${runId}`
  return runRunWorker(runId, {
    readState: (id) => Deno.readTextFile(`${root}/.agentic/runs/${id}/state.json`),
    open: (settings) => openDenoWorkspace(root, settings, undefined, { approvalKey: "memory" }),
    model: denoModel,
    log: (line) => {
      try {
        Deno.writeTextFileSync(`${dir}/worker.log`, `${line}\n`, { append: true })
      } catch {
        // no run folder (a bad run id): the line goes to standard error
        Deno.stderr.writeSync(new TextEncoder().encode(`${line}\n`))
      }
    }
  })
}
