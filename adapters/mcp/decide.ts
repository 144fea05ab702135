/**
 * How the user decides, said the way this host can do it. The core's texts speak the chat channel
 * ("reply /accept plan_…"), which no MCP client understands: over MCP a reply that needs the user
 * names the client's approval prompt (when the client can show one), the terminal command with this
 * workspace's root, and the review page when one is running. Host-free (web standards only).
 */
import type { Envelope } from "../../core/protocol/envelope.ts"

/** What this host offers the user for deciding. */
export interface DecisionChannels {
  /** The client shows elicitation forms: the server asks the user itself. */
  readonly prompt: boolean
  /** The workspace root, for the terminal command. */
  readonly root: string
  /** The review page, when one is running (a later issue serves it; hosts pass its URL here). */
  readonly reviewUrl?: string
}

/** A shell word: bare when safe, else single-quoted. */
export const shellWord = (word: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`

/** The terminal command that decides `id` in this workspace. */
export const terminalCommand = (verb: "accept" | "deny", id: string, root: string): string =>
  `npx agentic-workspace ${verb} ${id} --root ${shellWord(root)}${verb === "deny" ? " <reason>" : ""}`

/** The sentence naming every way the user can decide `id` here. */
export const waysToDecide = (id: string, channels: DecisionChannels): string => {
  const ways = [
    ...(channels.prompt ? ["in this client's approval prompt"] : []),
    `in a terminal with \`${terminalCommand("accept", id, channels.root)}\` (or \`${terminalCommand("deny", id, channels.root)}\`)`,
    ...(channels.reviewUrl === undefined ? [] : [`on the review page ${channels.reviewUrl}`])
  ]
  const list = ways.length === 1 ? ways[0]! : `${ways.slice(0, -1).join(", ")} or ${ways[ways.length - 1]!}`
  return `How the user decides ${id} here: ${list}. There is no /accept command in this client; tell the user these ways and wait.`
}

const ID = "((?:approval|plan)_[A-Za-z0-9]+)"

/** The core's chat phrasings and their host-neutral rewording (the ways are appended after). */
const CHAT_PHRASES: ReadonlyArray<readonly [RegExp, string]> = [
  [new RegExp(`replies /accept ${ID} \\(or /deny \\1 <reason>\\)`, "g"), "accepts or denies $1"],
  [new RegExp(`reply /accept ${ID} \\(or /deny \\1 <reason>\\)`, "g"), "accept or deny $1"],
  [new RegExp(`replies /accept ${ID} or /deny \\1`, "g"), "accepts or denies $1"],
  [new RegExp(`reply /accept ${ID} or /deny \\1`, "g"), "accept or deny $1"],
  [new RegExp(`wait for /accept ${ID}`, "g"), "wait for the user's decision on $1"],
  [/wait for \/accept/g, "wait for the user's decision"],
  [/its own \/accept/g, "its own approval"],
  [/\/(accept|deny) /g, "$1 "],
  [/\/accept\b/g, "approval"]
]

/** The core's chat wording reworded for a host without a chat preprocessor. */
export const reword = (text: string): string =>
  // Every phrase names /accept or /deny: a text without either (most replies) is left as it is, unscanned.
  !text.includes("/accept") && !text.includes("/deny")
    ? text
    : CHAT_PHRASES.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text)

/** The record the user must decide for this envelope, if any: a staged call, a pending plan, or the plan a refusal waits for. */
export const awaitedDecision = (
  envelope: Envelope
): { readonly id?: string; readonly reason: "staged" | "plan" | "plan_required" } | undefined => {
  const data = envelope.data as { status?: unknown; approval?: { id?: unknown }; planId?: unknown } | undefined
  if (envelope.ok && data?.status === "pending_approval" && typeof data.approval?.id === "string")
    return { id: data.approval.id, reason: "staged" }
  if (envelope.ok && data?.status === "pending" && typeof data.planId === "string")
    return { id: data.planId, reason: "plan" }
  if (!envelope.ok && envelope.error?.code === "APPROVAL_REQUIRED") {
    const pending = envelope.error.details?.["pendingPlanId"]
    return typeof pending === "string" ? { id: pending, reason: "plan_required" } : { reason: "plan_required" }
  }
  const planId = envelope.error?.details?.["planId"] ?? envelope.error?.details?.["id"]
  if (!envelope.ok && typeof planId === "string" && /\/accept/.test(envelope.error?.message ?? ""))
    return { id: planId, reason: "plan" }
  return undefined
}

/**
 * The envelope as this host says it: chat wording reworded in the summary, the error message and a
 * plan's instruction, and, when the user must decide, the ways to decide appended to the summary
 * (and the error message, which a failed envelope's summary repeats).
 */
export const forThisHost = (envelope: Envelope, channels: DecisionChannels): Envelope => {
  const awaited = awaitedDecision(envelope)
  const ways =
    awaited === undefined
      ? undefined
      : awaited.id !== undefined
        ? waysToDecide(awaited.id, channels)
        : `Once a plan is proposed, the user decides it ${channels.prompt ? "in this client's approval prompt, " : ""}in a terminal with \`${terminalCommand("accept", "<plan_id>", channels.root)}\`${channels.reviewUrl === undefined ? "" : `, or on the review page ${channels.reviewUrl}`}; there is no /accept command in this client.`
  const add = (text: string) => (ways === undefined ? reword(text) : `${reword(text)} ${ways}`)
  const data = envelope.data as Record<string, unknown> | undefined
  const instruction = typeof data?.["instruction"] === "string" ? (data["instruction"] as string) : undefined
  return {
    ...envelope,
    summary: add(envelope.summary),
    ...(data === undefined || instruction === undefined ? {} : { data: { ...data, instruction: add(instruction) } }),
    ...(envelope.error === undefined ? {} : { error: { ...envelope.error, message: add(envelope.error.message) } })
  }
}
