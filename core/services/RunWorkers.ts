/**
 * The host's way to run a sub-agent run (workspace_agent) in its own supervised worker process, so the
 * run outlives the call that started it. The worker is the toolkit's own process (Node: the bin's
 * `agent-worker` verb), not a workspace_command job: it is not sandboxed, the commands it runs are.
 * It opens the workspace with the settings recorded in the run's state.json and never reads the
 * approval key.
 */
import { narrowLayer } from "./members.ts"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { toolError, type ToolError } from "../protocol/errors.ts"

/** A started worker: its pid (the leader of its own process group) and identity (pid reuse is told apart). */
export interface Worker {
  readonly pid: number
  readonly identity: string
}

export interface RunWorkersShape {
  /** Starts the worker of `runId` in the workspace at `root` (absolute). */
  readonly spawn: (root: string, runId: string) => Effect.Effect<Worker, ToolError>
  /** Whether that worker still runs. */
  readonly alive: (worker: Worker) => Effect.Effect<boolean>
  /** Stops it (its whole group): SIGTERM, then SIGKILL after a grace period. */
  readonly stop: (worker: Worker) => Effect.Effect<void>
}

export class RunWorkers extends Context.Tag("agentic-workspace/RunWorkers")<RunWorkers, RunWorkersShape>() {
  static readonly layer = (shape: RunWorkersShape) => Layer.succeed(RunWorkers, shape)
  /** A host that cannot start worker processes: start and run refuse, naming the host. */
  static readonly layerUnavailable = (runtime: string) =>
    Layer.succeed(RunWorkers, {
      spawn: () =>
        Effect.fail(
          toolError(
            "TOOL_DISABLED",
            `this host (${runtime}) cannot start sub-agent worker processes; run workspace_agent under the Node host.`,
            { runtime }
          )
        ),
      alive: () => Effect.succeed(false),
      stop: () => Effect.void
    })
}

/** The members of RunWorkers that start nothing (WorkerReads) and the one that stops a worker (RunControl). */
export const WORKER_READS = ["alive"] as const
export const RUN_CONTROL = ["stop"] as const

/**
 * Whether a run's worker still runs: the reading half of RunWorkers (workspace_agent status and history,
 * research's deep reads). Starting a worker is not reachable from it.
 */
export class WorkerReads extends Context.Tag("agentic-workspace/WorkerReads")<
  WorkerReads,
  Pick<RunWorkersShape, (typeof WORKER_READS)[number]>
>() {
  static readonly layer = narrowLayer(WorkerReads, RunWorkers, WORKER_READS)
}

/**
 * A kernel-owned write: stopping a run's worker (workspace_agent cancel, an ungated action). It can stop a
 * worker the kernel recorded in the run's state; it cannot start one.
 */
export class RunControl extends Context.Tag("agentic-workspace/RunControl")<
  RunControl,
  Pick<RunWorkersShape, (typeof RUN_CONTROL)[number]>
>() {
  static readonly layer = narrowLayer(RunControl, RunWorkers, RUN_CONTROL)
}
