/**
 * Permission lowering, pure: what a run may do is its parent's or less, never more. Every rule of the
 * reference's workspace_agent section is one line here, and properties/agent-lowering.test.ts checks
 * them against random settings and parameters.
 */
import type { Settings } from "../../settings/settings.ts"
import type { Reach, RunMode } from "./schema.ts"

/** The run parameters that can lower a run's reach. */
export interface ReachInput {
  readonly mode?: RunMode | undefined
  readonly commit_edits?: boolean | undefined
  readonly allow_commands?: boolean | undefined
  readonly allow_web?: boolean | undefined
}

/** The host services a run's reach depends on. */
export interface HostReach {
  readonly process: boolean
  readonly network: boolean
}

/**
 * The run's reach under the parent's settings:
 * - commitEdits: the default comes from the mode (Auto and Plan: true; Manual: false); commit_edits may
 *   only lower it: false always wins, true cannot raise it;
 * - commands: process execution and allowAgentCommands on (and a host that runs processes), and
 *   allow_commands not false; research mode defaults to no commands;
 * - web: enableWebResearch and allowAgentWebResearch on (and a host with a network), and allow_web not false.
 */
export const reachOf = (settings: Settings, input: ReachInput, host: HostReach): Reach => {
  const commitDefault = settings.permissionMode !== 0
  const mode = input.mode ?? "coding"
  return {
    commitEdits: commitDefault && input.commit_edits !== false,
    commands:
      host.process &&
      settings.enableProcessExecution &&
      settings.allowAgentCommands &&
      (input.allow_commands ?? mode !== "research"),
    web: host.network && settings.enableWebResearch && settings.allowAgentWebResearch && input.allow_web !== false
  }
}

/** In Manual mode a run that can neither run commands nor reach the web has nothing to gate: it starts immediately. */
export const nothingToGate = (reach: Reach): boolean => !reach.commands && !reach.web

/**
 * The settings a run's own tools see: the parent's, lowered. Nothing is raised: booleans only go from
 * true to false, the mode is the parent's, and lists and ceilings are the parent's unchanged. A run cannot
 * start a run (enableSubAgents off), propose a plan, drive a browser or run version control.
 */
export const lowerSettings = (settings: Settings, reach: Reach): Settings => ({
  ...settings,
  enableSubAgents: false,
  allowAgentCommands: false,
  allowAgentWebResearch: false,
  enableProcessExecution: settings.enableProcessExecution && reach.commands,
  enableWebResearch: settings.enableWebResearch && reach.web,
  enableBrowser: false,
  enableBrowserEvaluate: false,
  enableVcsTools: false
})

/** Why a gated call inside a run is allowed, or the refusal it gets (recorded in the transcript). */
export type InnerVerdict = { readonly _tag: "Run" } | { readonly _tag: "Refuse"; readonly message: string }

/**
 * The gate of a call inside a run. The run holds the mode of the call that started it (`entryMode`);
 * before each gated call the worker reads the host's current mode and the lower of the two decides:
 * - Manual at entry: the approved entry authorises the run's command and web calls (they were never seen
 *   one by one; the edits are previews, which are not gated);
 * - Plan: the plan approved at entry must still be approved (not completed, superseded or expired);
 * - Auto: runs;
 * - a host now in a lower mode than the run's entry: Plan requires an approved plan, and Manual refuses,
 *   because nobody approved this call at the run's entry.
 */
export const innerGate = (entryMode: 0 | 1 | 2, hostMode: 0 | 1 | 2, planApproved: boolean): InnerVerdict => {
  if (entryMode === 0) return { _tag: "Run" }
  const mode = Math.min(entryMode, hostMode)
  if (mode === 2) return { _tag: "Run" }
  if (mode === 1) {
    return planApproved
      ? { _tag: "Run" }
      : {
          _tag: "Refuse",
          message:
            "Permission mode is Plan (1) and the plan this run started under is no longer approved: this call cannot run inside the run. Finish the run and report what remains."
        }
  }
  return {
    _tag: "Refuse",
    message:
      "The host is now in Manual mode (0), lower than when this run started: this call was not approved at the run's entry, so it cannot run inside the run. Finish the run and report what remains."
  }
}
