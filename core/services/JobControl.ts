/**
 * A kernel-owned write of workspace_command's ungated status and cancel: signalling the process group of a
 * job the kernel started. The group is the one the supervisor recorded in the job folder's `started.json`
 * (core/services/Processes.ts, the job folder protocol), never a number the caller chose, so a handler
 * with JobControl can end its own tool's jobs and nothing else; it cannot start anything.
 *
 * @example
 *   const control = yield* JobControl
 *   const signalled = yield* control.signalJob("job_1a2b", "SIGTERM")
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { StateReads } from "../store/StateStore.ts"
import { StartedRecordSchema } from "./jobFiles.ts"
import { Processes } from "./Processes.ts"

/** The boot a job was started in, as its job.json records it (workspace_command's record; only this field). */
const JobBoot = Schema.Struct({ bootId: Schema.optional(Schema.String) })

/** A job id as workspace_command mints it (`job_` and letters or digits): never a path. */
const JOB_ID = /^job_[A-Za-z0-9]+$/

export interface JobControlShape {
  /**
   * Sends `signal` to the process group recorded in `.agentic/jobs/<jobId>/started.json`; false when the
   * id is not a job id, the job never started (no started.json), it was started in another boot (job.json's
   * bootId), or no such group exists.
   */
  readonly signalJob: (jobId: string, signal: "SIGTERM" | "SIGKILL") => Effect.Effect<boolean>
}

/** The job control service, derived once from Processes and the state's reads. */
export class JobControl extends Context.Tag("agentic-workspace/JobControl")<JobControl, JobControlShape>() {
  static readonly layer = Layer.effect(
    JobControl,
    Effect.gen(function* () {
      const processes = yield* Processes
      const store = yield* StateReads
      /** Whether the job was started in this boot (a group id of another boot names someone else's processes). */
      const thisBoot = (jobId: string) =>
        Effect.gen(function* () {
          const recorded = (yield* store.readJson(`jobs/${jobId}/job.json`, JobBoot))?.bootId
          const boot = yield* processes.bootId
          return recorded === undefined || boot === undefined || recorded === boot
        })
      return {
        signalJob: (jobId, signal) =>
          JOB_ID.test(jobId)
            ? Effect.gen(function* () {
                if (!(yield* thisBoot(jobId))) return false
                const started = yield* store.readJson(`jobs/${jobId}/started.json`, StartedRecordSchema)
                return started === undefined ? false : yield* processes.signalGroup(started.pgid ?? started.pid, signal)
              }).pipe(Effect.catchAll(() => Effect.succeed(false)))
            : Effect.succeed(false)
      } satisfies JobControlShape
    })
  )
}
