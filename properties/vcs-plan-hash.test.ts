/**
 * Law: a workspace_vcs approval binds the state it acts on. The hash of a commit plan changes exactly when
 * the message, the index tree, HEAD, the branch or amend changes; a push plan's exactly when remote,
 * branch, the local commit, the lease's expectation or force changes. Oracle: equality of the inputs.
 */
import fc from "fast-check"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { hashOperation } from "../core/gate/hash.ts"
import { planCommit, planPush } from "../core/tools/vcs/plan.ts"
import { runs } from "./runs.ts"

const SEED = 20261201
const sha = fc.constantFrom("a".repeat(40), "b".repeat(40), "c".repeat(40))
const hash = (plan: unknown) =>
  Effect.runPromise(hashOperation({ tool: "workspace_vcs", kind: "vcs", operation: plan }))

const commitState = fc.record({
  cwd: fc.constantFrom("", "app"),
  top: fc.constant(""),
  message: fc.constantFrom("Add a", "Add b", "Add a\n\nbody"),
  amend: fc.boolean(),
  tree: sha,
  head: fc.option(sha, { nil: null }),
  branch: fc.option(fc.constantFrom("main", "topic"), { nil: null })
})

const pushState = fc.record({
  cwd: fc.constant(""),
  top: fc.constant(""),
  remote: fc.constantFrom("origin", "mirror"),
  remoteUrl: fc.constant("/srv/remote.git"),
  branch: fc.constantFrom("main", "topic"),
  localCommit: sha,
  remoteCommit: fc.option(sha, { nil: null }),
  force: fc.boolean(),
  setUpstream: fc.boolean()
})

describe("properties: what a vcs approval binds", () => {
  it(`commit: same hash exactly when message, tree, HEAD, branch, amend and cwd are the same (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(commitState, commitState, async (a, b) => {
        const same = JSON.stringify(a) === JSON.stringify(b)
        expect(
          (await hash(planCommit({ action: "commit" }, a).plan)) ===
            (await hash(planCommit({ action: "commit" }, b).plan))
        ).toBe(same)
      }),
      { seed: SEED, numRuns: runs(300) }
    )
  })

  it(`push: same hash exactly when remote, branch, local commit, lease expectation, force and set_upstream are the same (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(pushState, pushState, async (a, b) => {
        const same = JSON.stringify(a) === JSON.stringify(b)
        expect(
          (await hash(planPush({ action: "push" }, a).plan)) === (await hash(planPush({ action: "push" }, b).plan))
        ).toBe(same)
      }),
      { seed: SEED, numRuns: runs(300) }
    )
  })
})
