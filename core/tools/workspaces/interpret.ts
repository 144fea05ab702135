/**
 * Running a confirmed workspace_action request: the staged receipt written once (its inputs fixed from
 * the start), then, after the confirmation, the intent (unknown) before the effect and the outcome after
 * it, under the receipt's lock, so a request runs at most once. A git exit that proves nothing changed
 * settles `failed`; a timeout, or a failure whose effect cannot be known, leaves the receipt `unknown`.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { ExecResult } from "../../services/Processes.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import type { Git } from "../../exec/git.ts"
import type { Planned, ToolContext } from "../Tool.ts"
import { NOT_AGENTIC, readLine } from "./git.ts"
import { redactText, repoPath as githubPath, restError, restWrite } from "./github.ts"
import { branchTip, expectOf, type Loaded, requireGithub, stashRef } from "./load.ts"
import { loadChanges } from "./read.ts"
import {
  advance,
  conflict,
  noReceipt,
  type Phases,
  type Receipt,
  type ReceiptState,
  readReceipt,
  withReceiptLock,
  writeReceipt
} from "./receipt.ts"
import { type ActionPlan, type BuiltAction, inputsOf } from "./schema.ts"
import { defined } from "../../text/defined.ts"
import { nowIso } from "../../text/time.ts"

/** What an effect ended in. */
export interface Settlement {
  readonly state: ReceiptState
  readonly phases: Partial<Phases>
  readonly outcome: Record<string, unknown>
  readonly expect?: Record<string, unknown>
}

const failedWith = (
  phases: Partial<Phases>,
  error: ToolError | { code: string; message: string },
  extra: Record<string, unknown> = {}
): Settlement => ({
  state: "failed",
  phases,
  outcome: { code: error.code, message: error.message, ...extra }
})

/** git's complaint as a failure: VCS_FAILED (or `code`) with its stderr, cleaned by `clean`, cut at 500 characters. */
const gitFailure = (result: ExecResult, code = "VCS_FAILED", clean: (text: string) => string = (text) => text) => ({
  code,
  message: clean(result.stderr.trim()).slice(0, 500)
})

/**
 * A local git step settled by its exit: failed with git's complaint (and the phases of nothing applied) when it
 * exits non-zero, else succeeded with `phases` and `outcome`.
 */
const settleStep = (
  result: ExecResult,
  failedPhases: Partial<Phases>,
  succeeded: { readonly phases: Partial<Phases>; readonly outcome: Record<string, unknown> },
  extra: Record<string, unknown> = {}
): Settlement =>
  result.exitCode !== 0 ? failedWith(failedPhases, gitFailure(result), extra) : { state: "succeeded", ...succeeded }

/** `user:pass@` and tokens out of git's messages. */
export const redact = (text: string): string =>
  text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, "$1")
    .replace(/\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})\b/g, "[redacted]")

/** The receipt's inputs (`f`) and expectations (`e`), read as text; each effect reads only its own. */
type Fields = Record<string, string>

/** One action's effect, run once after the intent is written. */
type Effector = (git: Git, receipt: Receipt, f: Fields, e: Fields) => Effect.Effect<Settlement, ToolError, ToolContext>

const commitEffect: Effector = (git, _receipt, f, e) =>
  Effect.gen(function* () {
    yield* git.mustWrite(["add", "-A", "--", ".", ...NOT_AGENTIC])
    const result = yield* git.execWrite(["commit", "--no-verify", "-m", f["message"]!])
    if (result.exitCode !== 0) return failedWith({ local_applied: false }, gitFailure(result))
    return {
      state: "succeeded",
      phases: { local_applied: true, reloaded: false },
      outcome: { commit: yield* branchTip(git, e["branch"]!) }
    }
  })

const pushEffect: Effector = (git, _receipt, f, e) =>
  Effect.map(
    git.execWrite([
      "push",
      ...git.pushOptions(f["remote"]!),
      "--",
      f["remote"]!,
      `refs/heads/${f["branch"]}:refs/heads/${f["branch"]}`
    ]),
    (result): Settlement => {
      if (result.exitCode !== 0) {
        const rejected = /\[rejected\]|non-fast-forward|fetch first/.test(result.stderr)
        return failedWith(
          { local_applied: true, published: false },
          gitFailure(result, rejected ? "NON_FAST_FORWARD" : "VCS_FAILED", redact),
          { commit: e["commit"] }
        )
      }
      return {
        state: "succeeded",
        phases: { local_applied: true, published: true },
        outcome: { commit: e["commit"], remote: f["remote"], branch: f["branch"] }
      }
    }
  )

const pullEffect: Effector = (git, _receipt, f, e) =>
  Effect.gen(function* () {
    const fetched = yield* git.execWrite(["fetch", "--no-tags", "--", f["remote"]!, `refs/heads/${f["branch"]}`])
    if (fetched.exitCode !== 0)
      return failedWith({ local_applied: false, reloaded: false }, gitFailure(fetched, "VCS_FAILED", redact))
    const target = yield* readLine(git, ["rev-parse", "-q", "--verify", "FETCH_HEAD^{commit}"])
    const head = yield* readLine(git, ["rev-parse", "-q", "--verify", "HEAD"])
    if (head !== "" && (yield* git.exec(["merge-base", "--is-ancestor", target, head])).exitCode === 0) {
      return {
        state: "succeeded",
        phases: { local_applied: false, reloaded: false },
        outcome: { noop: true, target },
        expect: { ...e, target }
      }
    }
    const merged = yield* git.execWrite(["merge", "--ff-only", "--no-edit", target])
    if (merged.exitCode !== 0)
      return failedWith({ local_applied: false, reloaded: false }, gitFailure(merged, "NON_FAST_FORWARD"), {
        target
      })
    return {
      state: "succeeded",
      phases: { local_applied: true, reloaded: false },
      outcome: { target },
      expect: { ...e, target }
    }
  })

const branchCreateEffect: Effector = (git, _receipt, f, e) =>
  Effect.map(git.execWrite(["branch", "--", f["name"]!, e["commit"]!]), (result) =>
    settleStep(
      result,
      { local_applied: false },
      { phases: { local_applied: true }, outcome: { name: f["name"], commit: e["commit"] } }
    )
  )

/** Parks the working copy's changes in a stash before a switch: the stash's sha, null when clean, or the failure. */
const parkChanges = (git: Git, receipt: Receipt) =>
  Effect.gen(function* () {
    const changes = yield* loadChanges(git)
    if (changes.entries.length === 0) return Either.right<string | null>(null)
    const parked = yield* git.execWrite([
      "stash",
      "push",
      "-u",
      "-m",
      `agentic-workspace park ${receipt.requestId}`,
      "--",
      ".",
      ...NOT_AGENTIC
    ])
    if (parked.exitCode !== 0)
      return Either.left(failedWith({ local_applied: false, reloaded: false }, gitFailure(parked)))
    return Either.right<string | null>(yield* readLine(git, ["rev-parse", "-q", "--verify", "refs/stash"]))
  })

const branchSwitchEffect: Effector = (git, receipt, f) =>
  Effect.gen(function* () {
    const parked = yield* parkChanges(git, receipt)
    if (Either.isLeft(parked)) return parked.left
    const park = parked.right
    const result = yield* git.execWrite(["switch", "--", f["name"]!])
    return settleStep(
      result,
      { local_applied: false, reloaded: false },
      { phases: { local_applied: true, reloaded: false }, outcome: { name: f["name"], park } },
      { park }
    )
  })

const branchDeleteEffect: Effector = (git, _receipt, f, e) =>
  Effect.map(git.execWrite(["branch", "-D", "--", f["name"]!]), (result) =>
    settleStep(
      result,
      { local_applied: false },
      { phases: { local_applied: true }, outcome: { name: f["name"], tip: e["tip"] } }
    )
  )

const moveEffect: Effector = (git, _receipt, f) =>
  Effect.map(git.execWrite(["mv", "--", f["from"]!, f["to"]!]), (result) =>
    settleStep(
      result,
      { local_applied: false },
      { phases: { local_applied: true, reloaded: false }, outcome: { from: f["from"], to: f["to"] } }
    )
  )

const stashEffect: Effector = (git, receipt, f) =>
  Effect.gen(function* () {
    const ref = yield* stashRef(git, f["stash_id"]!)
    const restore = receipt.action === "stash_restore"
    const result = yield* git.execWrite(["stash", restore ? "pop" : "drop", ref])
    if (result.exitCode !== 0) {
      // A pop that conflicts has applied part of the stash and kept it: not a clean failure.
      return restore
        ? {
            state: "failed",
            phases: { local_applied: null, reloaded: false },
            outcome: { ...gitFailure(result, "MERGE_CONFLICT"), stash_kept: true }
          }
        : failedWith({ local_applied: false }, gitFailure(result))
    }
    return {
      state: "succeeded",
      phases: { local_applied: true, ...(restore ? { reloaded: false } : {}) },
      outcome: { stash_id: f["stash_id"] }
    }
  })

/** The REST call of pr_create (open the pull request) or pr_merge (merge it at the head the intent read). */
const prRequest = (git: Git, receipt: Receipt, f: Fields, e: Fields) =>
  Effect.flatMap(requireGithub(git), ({ gh, repo }) =>
    receipt.action === "pr_create"
      ? restWrite(gh, repo, "POST", `${githubPath(repo)}/pulls`, {
          title: f["title"],
          body: f["body"],
          head: f["head"],
          base: f["base"],
          draft: (receipt.inputs["draft"] as boolean | undefined) === true
        })
      : restWrite(gh, repo, "PUT", `${githubPath(repo)}/pulls/${e["number"]}/merge`, {
          sha: e["head_sha"],
          merge_method: "merge"
        })
  )

const prEffect: Effector = (git, receipt, f, e) =>
  Effect.gen(function* () {
    const answer = yield* prRequest(git, receipt, f, e)
    const json = (answer.json ?? {}) as Record<string, unknown>
    if (answer.status === undefined || answer.status >= 500) {
      // No answer, or a server error: GitHub may or may not have acted. Unknown, for reconciliation.
      return yield* Effect.fail(
        toolError(
          "VCS_FAILED",
          `GitHub gave no definite answer (${answer.status === undefined ? (answer.transport ?? "no response") : `HTTP ${answer.status}`}); the outcome is observed by reconciliation, never by retrying.`,
          {}
        )
      )
    }
    if (receipt.action === "pr_create" && answer.status === 201) {
      return {
        state: "succeeded",
        phases: { published: true },
        outcome: {
          pull_request_number: json["number"],
          url: typeof json["html_url"] === "string" ? redactText(json["html_url"]) : null
        }
      }
    }
    if (receipt.action === "pr_merge" && answer.status === 200 && json["merged"] === true) {
      return {
        state: "succeeded",
        phases: { published: true },
        outcome: { pull_request_number: e["number"], merge_commit: json["sha"] ?? null }
      }
    }
    // A 4xx is GitHub's refusal: nothing was created or merged.
    return failedWith(
      { published: false },
      restError(
        receipt.action === "pr_create" ? "opening the pull request" : `merging pull request #${e["number"]}`,
        answer
      ),
      { status: answer.status }
    )
  })

const EFFECTS: Record<BuiltAction, Effector> = {
  commit: commitEffect,
  push: pushEffect,
  pull: pullEffect,
  branch_create: branchCreateEffect,
  branch_switch: branchSwitchEffect,
  branch_delete: branchDeleteEffect,
  move: moveEffect,
  stash_restore: stashEffect,
  stash_discard: stashEffect,
  pr_create: prEffect,
  pr_merge: prEffect
}

/**
 * Runs the effect once. A git exit that proves nothing changed settles `failed`; a timeout, or a failure
 * whose effect cannot be known, leaves the receipt `unknown` for reconciliation.
 */
export const runEffect = (git: Git, receipt: Receipt): Effect.Effect<Settlement, ToolError, ToolContext> =>
  Effect.suspend(() =>
    EFFECTS[receipt.action as BuiltAction](
      git,
      receipt,
      receipt.inputs as Record<string, string>,
      receipt.expect as Record<string, string>
    )
  )

/** The receipt of a request as staged: needs_confirmation, with its inputs, their hash and the reviewed context. */
const stagedReceipt = (work: Extract<Loaded, { _tag: "Review" }>, at: string): Receipt => ({
  version: 1,
  requestId: work.input.request_id.toLowerCase(),
  action: work.input.action,
  inputs: inputsOf(work.input),
  inputsHash: work.hash,
  context: {
    contextId: work.input.context_id,
    branch: work.binding.branch,
    head: work.binding.head,
    tree: work.binding.tree
  },
  state: "needs_confirmation",
  phases: { local_applied: null, published: null, reloaded: null },
  expect: {},
  history: [{ state: "needs_confirmation", at }],
  createdAt: at,
  updatedAt: at
})

/** The receipt of a staged request, written once (state needs_confirmation) so its inputs are fixed from the start. */
export const recordAction = (planned: Planned<ActionPlan, Loaded>) =>
  Effect.gen(function* () {
    const work = planned.work
    if (work._tag !== "Review") return planned
    yield* withReceiptLock(
      work.input.request_id,
      Effect.gen(function* () {
        const existing = yield* readReceipt(work.input.request_id)
        if (existing !== undefined)
          return existing.inputsHash === work.hash ? undefined : yield* Effect.fail(conflict(work.input.request_id))
        const at = yield* nowIso
        return yield* writeReceipt(stagedReceipt(work, at))
      })
    )
    return planned
  })

/** Runs a confirmed request once: intent (unknown) before the effect, the outcome after; never twice. */
export const interpretAction = (_plan: ActionPlan, work: Loaded) =>
  Effect.gen(function* () {
    if (work._tag !== "Review") return work._tag === "Settled" ? work.receipt : yield* Effect.die("unreachable")
    const requestId = work.input.request_id
    return yield* withReceiptLock(
      requestId,
      Effect.gen(function* () {
        const receipt = yield* readReceipt(requestId)
        if (receipt === undefined) return yield* Effect.fail(noReceipt(requestId))
        if (receipt.state !== "needs_confirmation") return receipt
        const expect = yield* expectOf(work.git, work.input, work.binding)
        const intent = yield* advance(receipt, "unknown", yield* nowIso, {
          expect,
          note: "intent written; effect starting"
        })
        yield* writeReceipt(intent)
        const settlement = yield* Effect.either(runEffect(work.git, intent))
        if (Either.isLeft(settlement)) {
          // A timeout or an error whose effect cannot be known: the receipt stays unknown for reconciliation.
          const kept = { ...intent, outcome: { code: settlement.left.code, message: settlement.left.message } }
          yield* writeReceipt(kept)
          return kept
        }
        const settled = settlement.right
        const next = yield* advance(intent, settled.state, yield* nowIso, {
          phases: settled.phases,
          outcome: settled.outcome,
          ...defined({ expect: settled.expect })
        })
        yield* writeReceipt(next)
        return next
      })
    )
  })
