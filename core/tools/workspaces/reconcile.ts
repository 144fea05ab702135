/**
 * Reconciliation of an `unknown` receipt: observe whether the original effect happened (a commit with the
 * reviewed tree, the pushed sha on the remote, the PR on GitHub), never run it again. A proven effect
 * settles the receipt; anything else leaves it unknown with what was observed.
 */
import * as Effect from "effect/Effect"
import type { ToolError } from "../../protocol/errors.ts"
import type { Git } from "../../exec/git.ts"
import type { ReadContext } from "../Tool.ts"
import { githubOf, readLine, requireGit } from "./git.ts"
import { redactText, restGet } from "./github.ts"
import type { Settlement } from "./interpret.ts"
import { branchTip } from "./load.ts"
import { getPull } from "./prs.ts"
import { loadStashes } from "./read.ts"
import { advance, noReceipt, type Receipt, readReceipt, withReceiptLock, writeReceipt } from "./receipt.ts"
import type { BuiltAction } from "./schema.ts"
import { nowIso } from "../../text/time.ts"

/** What reconciliation observed: a settlement when the original effect is proven, else the facts seen. */
export interface Observation {
  readonly settled?: Settlement
  readonly observed: Record<string, unknown>
}

/** The receipt's expectations, fixed at the intent (expectOf), read as text or null. */
type Expect = Record<string, string | null>

/** One action's observation of its original effect. */
type Observer = (git: Git, receipt: Receipt, e: Expect) => Effect.Effect<Observation, ToolError, ReadContext>

const observeCommit: Observer = (git, _receipt, e) =>
  Effect.gen(function* () {
    const tip = e["branch"] === null ? "" : yield* branchTip(git, e["branch"]!)
    const log = tip === "" ? "" : yield* readLine(git, ["log", "-n50", "--format=%H%x1f%P%x1f%T%x1f%B%x1e", tip])
    const found = log
      .split("\x1e")
      .map((line) => line.replace(/^\n/, "").split("\x1f"))
      .find(
        ([, parents, tree, message]) =>
          tree === e["tree"] &&
          (parents ?? "") === (e["parent"] ?? "") &&
          (message ?? "").trim() === (e["message"] ?? "").trim()
      )
    if (found !== undefined)
      return {
        settled: {
          state: "succeeded",
          phases: { local_applied: true, reloaded: false },
          outcome: { commit: found[0], reconciled: true }
        },
        observed: { commit: found[0] }
      }
    return { observed: { branch_tip: tip === "" ? null : tip, commit_found: false } }
  })

const observePush: Observer = (git, _receipt, e) =>
  Effect.gen(function* () {
    const listed = yield* git.exec(["ls-remote", "--", e["remote"]!, `refs/heads/${e["branch"]}`])
    if (listed.exitCode !== 0) return { observed: { remote_readable: false } }
    const remoteSha = listed.stdout.split("\t")[0]!.trim() || null
    const local = e["commit"] === null ? "" : yield* readLine(git, ["cat-file", "-t", e["commit"]!])
    if (remoteSha === e["commit"]) {
      return {
        settled: {
          state: "succeeded",
          phases: { local_applied: true, published: true },
          outcome: { commit: e["commit"], reconciled: true }
        },
        observed: { remote_ref: remoteSha }
      }
    }
    return { observed: { remote_ref: remoteSha, local_commit_present: local === "commit", published: false } }
  })

const observePull: Observer = (git, _receipt, e) =>
  Effect.gen(function* () {
    const head = yield* readLine(git, ["rev-parse", "-q", "--verify", "HEAD"])
    if (
      e["target"] !== undefined &&
      e["target"] !== null &&
      head !== "" &&
      (yield* git.exec(["merge-base", "--is-ancestor", e["target"]!, head])).exitCode === 0
    ) {
      return {
        settled: {
          state: "succeeded",
          phases: { local_applied: head !== e["before"], reloaded: false },
          outcome: { target: e["target"], reconciled: true }
        },
        observed: { head }
      }
    }
    return { observed: { head } }
  })

const observeBranchCreate: Observer = (git, _receipt, e) =>
  Effect.map(branchTip(git, e["name"]!), (tip): Observation => {
    if (tip !== "" && tip === e["commit"])
      return {
        settled: {
          state: "succeeded",
          phases: { local_applied: true },
          outcome: { name: e["name"], commit: tip, reconciled: true }
        },
        observed: { tip }
      }
    return { observed: { tip: tip === "" ? null : tip } }
  })

const observeBranchSwitch: Observer = (git, _receipt, e) =>
  Effect.map(readLine(git, ["symbolic-ref", "--short", "-q", "HEAD"]), (branch): Observation => {
    if (branch === e["name"])
      return {
        settled: {
          state: "succeeded",
          phases: { local_applied: true, reloaded: false },
          outcome: { name: branch, reconciled: true }
        },
        observed: { branch }
      }
    return { observed: { branch: branch === "" ? null : branch } }
  })

const observeBranchDelete: Observer = (git, _receipt, e) =>
  Effect.map(branchTip(git, e["name"]!), (tip): Observation => {
    if (tip === "")
      return {
        settled: {
          state: "succeeded",
          phases: { local_applied: true },
          outcome: { name: e["name"], tip: e["tip"], reconciled: true }
        },
        observed: { exists: false }
      }
    return { observed: { exists: true, tip } }
  })

const observeMove: Observer = (git, _receipt, e) =>
  Effect.gen(function* () {
    const to = yield* git.exec(["ls-files", "--error-unmatch", "--", `:(literal,top)${e["to"]}`])
    const from = yield* git.exec(["ls-files", "--error-unmatch", "--", `:(literal,top)${e["from"]}`])
    if (to.exitCode === 0 && from.exitCode !== 0)
      return {
        settled: {
          state: "succeeded",
          phases: { local_applied: true, reloaded: false },
          outcome: { from: e["from"], to: e["to"], reconciled: true }
        },
        observed: { moved: true }
      }
    return { observed: { to_tracked: to.exitCode === 0, from_tracked: from.exitCode === 0 } }
  })

const observeStash: Observer = (git, receipt, e) =>
  Effect.map(loadStashes(git), ({ entries }): Observation => {
    const present = entries.some((entry) => entry.stash_id === e["stash_id"])
    if (!present && receipt.action === "stash_discard")
      return {
        settled: {
          state: "succeeded",
          phases: { local_applied: true },
          outcome: { stash_id: e["stash_id"], reconciled: true }
        },
        observed: { stash_present: false }
      }
    // A stash that is gone after a restore may have been popped or dropped by someone else: not proven.
    return { observed: { stash_present: present } }
  })

const observePrCreate: Observer = (git, _receipt, e) =>
  Effect.gen(function* () {
    const found = yield* githubOf(git)
    if (found === undefined) return { observed: { github_readable: false } }
    const owner = e["owner"]!
    const answer = yield* restGet(
      found.gh,
      found.repo,
      `repos/${owner}/${e["repo"]}/pulls?state=all&head=${encodeURIComponent(`${owner}:${e["head"]}`)}&base=${encodeURIComponent(e["base"]!)}&per_page=100`
    )
    if (answer.status !== 200 || !Array.isArray(answer.json))
      return { observed: { github_readable: false, status: answer.status ?? null } }
    const match = (answer.json as Array<{ number: number; title: string; html_url?: string }>).find(
      (pull) => pull.title === e["title"]
    )
    if (match !== undefined) {
      return {
        settled: {
          state: "succeeded",
          phases: { published: true },
          outcome: {
            pull_request_number: match.number,
            url: match.html_url === undefined ? null : redactText(match.html_url),
            reconciled: true
          }
        },
        observed: { pull_request_number: match.number }
      }
    }
    return { observed: { matching_pull_requests: 0, published: false } }
  })

const observePrMerge: Observer = (git, _receipt, e) =>
  Effect.gen(function* () {
    const found = yield* githubOf(git)
    if (found === undefined) return { observed: { github_readable: false } }
    const number = Number(e["number"])
    const pull = yield* Effect.either(getPull(found.gh, found.repo, number))
    if (pull._tag === "Left") return { observed: { github_readable: false } }
    const { merged, merge_commit_sha: mergeCommit, head, state } = pull.right
    if (merged === true && head.sha === e["head_sha"]) {
      return {
        settled: {
          state: "succeeded",
          phases: { published: true },
          outcome: { pull_request_number: number, merge_commit: mergeCommit ?? null, reconciled: true }
        },
        observed: { merged: true, merge_commit: mergeCommit ?? null }
      }
    }
    // Not merged (or merged at another head): not proof that the original request can never land; it stays unknown.
    return { observed: { merged: merged === true, state, head_sha: head.sha } }
  })

const OBSERVERS: Record<BuiltAction, Observer> = {
  commit: observeCommit,
  push: observePush,
  pull: observePull,
  branch_create: observeBranchCreate,
  branch_switch: observeBranchSwitch,
  branch_delete: observeBranchDelete,
  move: observeMove,
  stash_restore: observeStash,
  stash_discard: observeStash,
  pr_create: observePrCreate,
  pr_merge: observePrMerge
}

/** Observes the original effect of an `unknown` receipt; never runs it. */
export const observe = (git: Git, receipt: Receipt): Effect.Effect<Observation, ToolError, ReadContext> =>
  Effect.suspend(() => OBSERVERS[receipt.action as BuiltAction](git, receipt, receipt.expect as Expect))

/**
 * Reads a receipt and, when it is `unknown` and `reconcile` is set, observes the original effect under the
 * receipt's lock: a proven effect settles it, anything else leaves it unknown with what was observed.
 */
export const operationOf = (requestId: string, reconcile: boolean) =>
  Effect.gen(function* () {
    const found = yield* readReceipt(requestId)
    if (found === undefined) return yield* Effect.fail(noReceipt(requestId))
    if (!reconcile || found.state !== "unknown")
      return { receipt: found, observed: undefined as Record<string, unknown> | undefined }
    const git = yield* requireGit
    return yield* withReceiptLock(
      requestId,
      Effect.gen(function* () {
        const receipt = (yield* readReceipt(requestId)) ?? found
        if (receipt.state !== "unknown") return { receipt, observed: undefined }
        const seen = yield* observe(git, receipt)
        if (seen.settled === undefined) return { receipt, observed: seen.observed }
        const at = yield* nowIso
        const next = yield* advance(receipt, seen.settled.state, at, {
          phases: seen.settled.phases,
          outcome: seen.settled.outcome,
          note: "reconciled by observation"
        })
        yield* writeReceipt(next)
        return { receipt: next, observed: seen.observed }
      })
    )
  })
