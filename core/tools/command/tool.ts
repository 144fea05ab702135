/**
 * workspace_command: run (foreground, bounded), start (a background job), status and cancel. No shell,
 * ever: the executable and its arguments are passed separately. run and start are gated (kind
 * "command"); status and cancel never are. Every process is started through the Processes port under
 * a supervisor, in its own process group, with its logs and exit record under .agentic/jobs/<job-id>/.
 * Inputs in schema.ts, what may run in policy.ts, run/start in launch.ts, status/cancel in status.ts,
 * result shaping in view.ts.
 */
import { lazyTool } from "../Tool.ts"
import { JOBS_DIR, jobChanges, markOrphanedJobs } from "./jobs.ts"
import { DESCRIPTION } from "./description.ts"

/** The workspace_command tool; its actions and handlers (actions.ts) load on its first call or listing. */
export const commandTool = lazyTool(
  {
    name: "workspace_command",
    short: "command",
    description: DESCRIPTION,
    enabled: (settings) => settings.enableProcessExecution,
    requires: ["process"],
    hints: {
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: true,
      why: "an allowed executable can delete files or reach the network (`npm install`, `git fetch`); unsure means yes"
    },
    startup: [{ name: "jobs: mark lost jobs orphaned", run: markOrphanedJobs }],
    changes: [
      {
        key: "jobs",
        rank: 30,
        list: jobChanges,
        facts: (jobs) =>
          (jobs as ReadonlyArray<{ readonly id?: string; readonly status?: string }>)
            .slice(0, 20)
            .map((job) => `job ${job.id ?? "?"} ${job.status ?? ""}`.trim()),
        // The one route back to a job_ id after compression: never omitted, at least 20 kept when trimmed.
        keepAtLeast: 20
      }
    ],
    storage: [
      {
        name: "jobs",
        path: ".agentic/jobs/<job_id>/",
        probe: JOBS_DIR,
        description: "command jobs and their full output (workspace_command)",
        rank: 60
      }
    ],
    // A captured job's changes become a planned workspace_edit transaction (capture.ts).
    alsoWrites: ["transactions"],
    probe: { args: { action: "status", job_id: "job_00000000" }, ok: "any" }
  },
  () => import("./actions.ts").then((module) => module.parts)
)
