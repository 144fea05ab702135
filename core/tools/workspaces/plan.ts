/**
 * workspace_action's pure planner: a loaded request becomes the plan its confirmation binds (request,
 * inputs' hash, context and reviewed tree), with its title, prompt (argv and refs), destructive reason,
 * resume call and the staged preview; a request past confirmation is a no-op showing its receipt.
 */
import * as Either from "effect/Either"
import type { Planned } from "../Tool.ts"
import type { Loaded } from "./load.ts"
import { type ActionInput, type ActionPlan, DESTRUCTIVE, inputsOf } from "./schema.ts"
import { operationResult } from "./view.ts"

/** The plan of a loaded request, or its receipt when it is past confirmation (nothing is replayed). */
export const planAction = (input: ActionInput, loaded: Loaded) => {
  if (loaded._tag === "Settled") {
    const result = operationResult(loaded.receipt)
    return Either.right({
      _tag: "NoOp" as const,
      result: { ...result, summary: `${result.summary} Nothing was replayed.` }
    })
  }
  const inputs = inputsOf(input)
  const destructive = DESTRUCTIVE.includes(input.action)
  const planned: Planned<ActionPlan, Loaded> = {
    _tag: "Planned",
    plan: {
      _tag: "WorkspaceAction",
      request_id: input.request_id.toLowerCase(),
      action: input.action,
      inputs_hash: loaded.hash,
      context_id: input.context_id,
      tree: loaded.binding.tree
    },
    work: loaded,
    title: `workspace_action ${input.action} (request ${input.request_id})`,
    prompt: { _tag: "vcs", argv: [...loaded.review.argv], cwd: ".", refs: [...loaded.review.refs] },
    ...(destructive
      ? { destructive: { command: `workspace_action ${input.action}`, reasons: [{ operation: input.action }] } }
      : {}),
    resume: { tool: "workspace_action", arguments: { action: input.action, ...inputs } },
    preview: {
      data: {
        status: "needs_confirmation",
        request_id: input.request_id,
        action: input.action,
        guide: loaded.review.guide,
        review: { argv: loaded.review.argv, refs: loaded.review.refs }
      }
    }
  }
  return Either.right(planned)
}
