/**
 * The prompts the MCP server puts to the user through `elicitation/create` when the client can show a
 * form: a staged call (accept runs it, decline denies it) and a proposed plan (accept approves it, decline
 * denies it with the note as the reason). Cancel, an error or a timeout leaves either pending, and the
 * reply names the other ways to decide (adapters/mcp/decide.ts).
 */
import type { CallToolResult, ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import { approvalBlock } from "../../core/gate/preprocess.ts"
import { type Prompt, promptLines } from "../../core/gate/prompt.ts"
import type { ResumeCall } from "../../core/gate/records.ts"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { defined } from "../../core/text/defined.ts"
import type { Session } from "../open.ts"
import { type DecisionChannels, forThisHost, waysToDecide } from "./decide.ts"
import { callResult } from "./wire.ts"

/** The approval part of a staged envelope, when the call was staged. */
export interface StagedApproval {
  readonly id: string
  readonly kind: string
  readonly title: string
  readonly destructive: boolean
  readonly resume?: ResumeCall
}

/** Reads the staged approval out of an envelope (`data.status === "pending_approval"`). */
export const stagedApproval = (envelope: Envelope): StagedApproval | undefined => {
  const data = envelope.data as { status?: unknown; approval?: Partial<StagedApproval> } | undefined
  if (!envelope.ok || data?.status !== "pending_approval" || typeof data.approval?.id !== "string") return undefined
  return {
    id: data.approval.id,
    kind: String(data.approval.kind ?? "operation"),
    title: String(data.approval.title ?? data.approval.id),
    destructive: data.approval.destructive === true,
    ...defined({ resume: data.approval.resume })
  }
}

const MESSAGE_PREVIEW_CHARS = 6000

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters; see the envelope)`

/** The text of an approval prompt: operation, destructive flag, and what the record's typed prompt asks (the diff, the argv and cwd, ...). */
export const approvalMessage = (
  tool: string,
  envelope: Envelope,
  approval: StagedApproval,
  prompt?: Prompt
): string => {
  const lines = [
    `${tool} wants to run ${envelope.operation}: ${approval.title}`,
    `Approval ${approval.id} (${approval.kind}). Destructive: ${approval.destructive ? "YES: it deletes, moves or overwrites existing content" : "no"}.`
  ]
  if (prompt !== undefined) lines.push("", ...promptLines(prompt, MESSAGE_PREVIEW_CHARS))
  if (approval.resume !== undefined)
    lines.push(
      "",
      `Runs: ${approval.resume.tool} ${clip(JSON.stringify(approval.resume.arguments), MESSAGE_PREVIEW_CHARS)}`
    )
  lines.push(
    "",
    "Accept runs it now; Decline denies it (the identical call is then refused); Cancel leaves it pending."
  )
  return lines.join("\n")
}

/** The schema of an approval prompt: nothing required, an optional note (a reason when declining). */
export const APPROVAL_SCHEMA = {
  type: "object" as const,
  properties: {
    note: {
      type: "string" as const,
      title: "Note",
      description: "Optional: a note for the model (or the reason, when you decline)."
    }
  }
}

/** Whether a client can show a form elicitation (an empty `elicitation` object means form). */
export const canElicitForm = (
  capabilities: { elicitation?: { form?: unknown; url?: unknown } } | undefined
): boolean => {
  const elicitation = capabilities?.elicitation
  if (elicitation === undefined) return false
  return !(elicitation.form === undefined && elicitation.url !== undefined)
}

/** What a prompt needs besides the elicit function: the session, this host's channels, the result budget. */
export interface PromptContext {
  readonly elicit: (params: ElicitRequestFormParams) => Promise<ElicitResult>
  readonly session: Session
  readonly channels: DecisionChannels
  readonly budget: number
}

/** The note of an answer, trimmed, when the user wrote one. */
const noteOf = (answer: ElicitResult): string | undefined =>
  typeof answer.content?.["note"] === "string" && answer.content["note"].trim().length > 0
    ? answer.content["note"].trim()
    : undefined

/** Asks; undefined when the prompt failed or timed out (the error's text is returned beside). */
const ask = async (context: PromptContext, message: string): Promise<ElicitResult | { readonly failed: string }> => {
  try {
    return await context.elicit({ mode: "form", message, requestedSchema: APPROVAL_SCHEMA })
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) }
  }
}

/** Channels after the prompt was used up (dismissed or failed): the terminal and the review page remain. */
const withoutPrompt = (channels: DecisionChannels): DecisionChannels => ({ ...channels, prompt: false })

/**
 * Puts a staged call to the user and acts on the answer: accept decides the record approved and runs
 * its resume call (the approval is bound to that operation's hash, so it runs now and is consumed);
 * decline denies it and re-issues the call, which the gate answers with APPROVAL_DENIED; cancel, an
 * error or a timeout leaves it pending and returns the staged envelope, naming the other ways.
 */
export const askUser = async (
  context: PromptContext,
  tool: string,
  args: unknown,
  staged: Envelope,
  approval: StagedApproval
): Promise<CallToolResult> => {
  const { session, budget } = context
  const later = forThisHost(staged, withoutPrompt(context.channels))
  const prompt = (await session.approvals()).find((record) => record.id === approval.id)?.prompt
  const answer = await ask(context, approvalMessage(tool, staged, approval, prompt))
  if ("failed" in answer) {
    return callResult(
      later,
      `The approval prompt for ${approval.id} got no answer (${answer.failed}); it stays pending. ${waysToDecide(approval.id, withoutPrompt(context.channels))}`,
      budget
    )
  }
  if (answer.action === "cancel") {
    return callResult(
      later,
      `The user dismissed the approval prompt: ${approval.id} stays pending. Do not retry; wait for the user's decision.`,
      budget
    )
  }
  const note = noteOf(answer)
  const verb = answer.action === "accept" ? "accept" : "deny"
  const decided = await session.decide({ verb, id: approval.id, ...defined({ text: note }) })
  if (decided._tag === "Left") {
    return callResult(
      later,
      `The user answered ${answer.action} for ${approval.id}, but it was not decided: ${decided.left.code}: ${decided.left.message}`,
      budget
    )
  }
  const resume = approval.resume ?? { tool, arguments: args as Record<string, unknown> }
  const envelope = forThisHost(await session.call(resume.tool, resume.arguments), context.channels)
  const said = note === undefined ? "" : ` ${verb === "accept" ? "Note" : "Reason"}: ${note}`
  return callResult(
    envelope,
    verb === "accept"
      ? `The user approved ${approval.id} in the client's prompt and it ran as ${resume.tool} ${JSON.stringify(resume.arguments)}; do not call it again.${said}`
      : `The user denied ${approval.id} in the client's prompt.${said} Never re-issue the denied operation unchanged: change it to meet the reason, or ask the user.`,
    budget
  )
}

/** The text of a plan prompt: title, objective, steps, files and commands as the plan's markdown gives them. */
export const planMessage = (proposed: Envelope, planId: string): string => {
  const data = (proposed.data ?? {}) as { markdown?: unknown; plan?: { title?: unknown } }
  const markdown = typeof data.markdown === "string" ? data.markdown : proposed.summary
  return [
    `The model proposes plan ${planId}. Approving it lets the model change the workspace (edits, commands) without asking again until it completes the plan.`,
    "",
    clip(markdown, MESSAGE_PREVIEW_CHARS),
    "",
    "Accept approves the plan; Decline denies it (write why in the note); Cancel decides later."
  ].join("\n")
}

/**
 * Puts a proposed plan to the user before propose returns: accept approves it (the next mutating
 * call runs under it), decline denies it with the note as the reason, cancel or no answer leaves it
 * pending. The result is the propose envelope with the plan's status after the answer and the
 * decision said as the preprocessor would say it.
 */
export const askPlan = async (context: PromptContext, proposed: Envelope, planId: string): Promise<CallToolResult> => {
  const { session, budget } = context
  const later = forThisHost(proposed, withoutPrompt(context.channels))
  const answer = await ask(context, planMessage(proposed, planId))
  if ("failed" in answer) {
    return callResult(
      later,
      `The plan prompt for ${planId} got no answer (${answer.failed}); the plan stays pending.`,
      budget
    )
  }
  if (answer.action === "cancel") {
    return callResult(
      later,
      `The user dismissed the plan prompt: ${planId} stays pending. Do not retry; wait for the user's decision.`,
      budget
    )
  }
  const note = noteOf(answer)
  const verb = answer.action === "accept" ? "accept" : "deny"
  const decided = await session.decide({ verb, id: planId, ...defined({ text: note }) })
  if (decided._tag === "Left") {
    return callResult(
      later,
      `The user answered ${answer.action} for ${planId}, but it was not decided: ${decided.left.code}: ${decided.left.message}`,
      budget
    )
  }
  const block = approvalBlock(decided.right, session.settings?.permissionMode ?? 1)
  const told = block
    .replace(/^<agentic-approval>\n/, "")
    .replace(/\n<\/agentic-approval>$/, "")
    .replace(/\n/g, " ")
  const data = (proposed.data ?? {}) as Record<string, unknown>
  const status = decided.right.record.status
  const envelope: Envelope = {
    ...proposed,
    summary: `${told}`,
    data: {
      ...data,
      status,
      instruction: told,
      ...(note === undefined ? {} : verb === "accept" ? { note } : { reason: note })
    },
    retention: {
      importance: "critical",
      facts: [
        `plan ${planId} ${status} by the user in the client's prompt`,
        ...(proposed.retention.facts ?? []).slice(1)
      ]
    }
  }
  return callResult(
    envelope,
    `The user ${verb === "accept" ? "approved" : "denied"} plan ${planId} in the client's prompt.`,
    budget
  )
}

/** The id of a plan a propose envelope left pending. */
export const proposedPlan = (envelope: Envelope): string | undefined => {
  const data = envelope.data as { status?: unknown; planId?: unknown } | undefined
  return envelope.ok &&
    envelope.operation === "plan.propose" &&
    data?.status === "pending" &&
    typeof data.planId === "string"
    ? data.planId
    : undefined
}
