/**
 * The sub-agent worker on Node (`agent-worker --root ROOT RUN_ID`, started by NodeRunWorkers): the shared
 * worker (adapters/agentWorker.ts) over the Node host, with the approval key held in memory and the
 * model reached through modelBaseUrl with Node's fetch.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { runRunWorker } from "../agentWorker.ts"
import { openNodeWorkspace } from "./host.ts"
import { nodeModel } from "./NodeModel.ts"

export const runWorker = (root: string, runId: string): Promise<number> =>
  runRunWorker(runId, {
    readState: (id) => fs.readFile(path.join(root, ".agentic", "runs", id, "state.json"), "utf8"),
    open: (settings) => openNodeWorkspace(root, settings, undefined, { approvalKey: "memory" }),
    model: nodeModel,
    log: (line) => void process.stderr.write(`${line}\n`)
  })
