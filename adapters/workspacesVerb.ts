/**
 * `agentic-workspace workspaces status|review|changes|receipt|reconcile|confirm|commit|push|branch
 * --root DIR (or --project DIR) --json`: the Workspaces tools' data for the terminal, one JSON document on stdout.
 * Reads never replay anything (`--yes` on a read is refused); `confirm --request-id ID --yes` confirms a
 * pending model request after showing it; commit, push and branch with `--yes` act directly with a fresh
 * request id and a receipt like any other, and without `--yes` print what they would do and do nothing.
 */
import type { ApprovalRecord } from "../core/gate/records.ts"
import type { Envelope } from "../core/protocol/envelope.ts"
import { failure, success } from "../core/protocol/envelope.ts"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { toolError } from "../core/protocol/errors.ts"
import { defined } from "../core/text/defined.ts"
import { reviewOf } from "../core/tools/workspaces/load.ts"
import { operationOf } from "../core/tools/workspaces/reconcile.ts"
import { ActionFields, type ActionInput } from "../core/tools/workspaces/schema.ts"
import { checkContext, requireGit } from "../core/tools/workspaces/git.ts"
import { operationResult } from "../core/tools/workspaces/view.ts"
import { actionTool, operationTool } from "../core/tools/workspaces/tool.ts"
import { withOwnStore } from "../core/ownStore.ts"
import type { CliHost, ParsedLine } from "./cli.ts"
import type { Session } from "./open.ts"

const READS = ["status", "review", "changes", "receipt", "reconcile"]
const MUTATIONS = ["confirm", "commit", "push", "branch"]
const WORKSPACES_FLAGS = ["project", "json", "limit", "offset", "request-id", "yes"]

/** The review of a terminal action, decoded as the tool decodes it; nothing is staged or written. */
const dryReview = (input: ActionInput) =>
  Effect.gen(function* () {
    const { action, ...fields } = input
    yield* Schema.decodeUnknown(ActionFields[action] as Schema.Schema.AnyNoContext, { onExcessProperty: "error" })(
      fields
    ).pipe(Effect.mapError((error) => toolError("INVALID_INPUT", error.message)))
    const git = yield* requireGit
    const binding = yield* checkContext(git, input.context_id)
    return yield* reviewOf(git, input, binding)
  })

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

const usage = (host: CliHost, message: string) => {
  host.stdout(json(failure("workspaces.cli", toolError("INVALID_INPUT", message))))
  return 2
}

const intFlag = (line: ParsedLine, name: string, fallback: number): number | undefined => {
  const given = line.flags[name]
  if (given === undefined) return fallback
  return typeof given === "string" && /^\d+$/.test(given) ? Number(given) : undefined
}

const contextOf = async (session: Session) => {
  const status = await session.call("get_workspace_status", {})
  return { status, contextId: (status.data as { context_id?: string } | undefined)?.context_id }
}

/** Every page of changes (review). */
const allChanges = async (session: Session, contextId: string) => {
  const entries: Array<unknown> = []
  let offset: number | null = 0
  let snapshot: string | undefined
  let complete = true
  while (offset !== null) {
    const page: Envelope = await session.call("read_workspace", {
      context_id: contextId,
      view: "changes",
      offset,
      limit: 64,
      ...defined({ read_snapshot: snapshot })
    })
    if (!page.ok) return page
    const d = page.data as {
      entries: Array<unknown>
      next_offset: number | null
      read_snapshot: string
      complete: boolean
    }
    entries.push(...d.entries)
    snapshot = d.read_snapshot
    complete = complete && d.complete
    offset = d.next_offset
  }
  return { entries, complete, read_snapshot: snapshot }
}

/** A checked workspaces line: its subcommand and operands, the working copy's root, and whether --yes was given. */
interface CheckedLine {
  readonly sub: string
  readonly rest: ReadonlyArray<string>
  readonly root: string
  readonly yes: boolean
}

/** What one workspaces call works with once its line is checked and its session opened. */
interface VerbCall extends CheckedLine {
  readonly line: ParsedLine
  readonly host: CliHost
  readonly session: Session
}

/** The line checked before anything opens: the checked line, or the usage message that refuses it. */
const checkLine = (line: ParsedLine, host: CliHost): CheckedLine | string => {
  const [sub, ...rest] = line.positional
  if (sub === undefined || ![...READS, ...MUTATIONS].includes(sub))
    return `workspaces needs one of: ${[...READS, ...MUTATIONS].join(", ")}.`
  // --root is the working copy as for every other verb; --project (the integration spec's name) says the same.
  const given = line.flags["project"]
  if (given === true) return "--project takes DIR (the working copy's root)."
  if (given !== undefined && line.rootGiven) {
    const projectRoot = given.startsWith("/") ? given : `${host.cwd.replace(/\/$/, "")}/${given}`
    if (projectRoot.replace(/\/+$/, "") !== line.root.replace(/\/+$/, ""))
      return `--root ${line.root} and --project ${given} name different folders; give one of them.`
  }
  const project = given ?? (line.rootGiven ? line.root : undefined)
  if (project === undefined) return "workspaces needs --root DIR (or --project DIR): the working copy's root."
  const yes = line.flags["yes"] === true
  // Only the verb's own flags: anything else (a --token, a --force) is refused, never ignored.
  const unknown = Object.keys(line.flags).filter((flag) => !WORKSPACES_FLAGS.includes(flag))
  if (unknown.length > 0)
    return `workspaces takes only --root, --set, --${WORKSPACES_FLAGS.join(", --")}; remove --${unknown.join(", --")} (credentials stay with git and gh).`
  if (READS.includes(sub) && yes) return `--yes confirms a mutation; ${sub} is a read and takes no --yes.`
  const root = project.startsWith("/") ? project : `${host.cwd.replace(/\/$/, "")}/${project}`
  return { sub, rest, root, yes }
}

const print = (host: CliHost, envelope: Envelope) => {
  host.stdout(json(envelope))
  return envelope.ok ? 0 : 1
}

/** receipt and reconcile: the receipt of --request-id, observed again under its lock for reconcile. */
const operationVerb = async ({ line, host, session, sub }: VerbCall) => {
  const requestId = line.flags["request-id"]
  if (typeof requestId !== "string") return usage(host, `${sub} needs --request-id ID (the original request id).`)
  const result = await session
    .runtime!.run(withOwnStore(operationTool, operationOf(requestId, sub === "reconcile")))
    .then(
      ({ receipt, observed }) => success(`workspaces.${sub}`, operationResult(receipt, observed)),
      (error) =>
        failure(`workspaces.${sub}`, toolError("NOT_FOUND", String((error as { message?: string }).message ?? error)))
    )
  return print(host, result)
}

/** The pending approval of a model request, shown in the tool's staged shape: the approval and the review. */
const shownApproval = (pending: ApprovalRecord, requestId: string, status: "needs_confirmation" | "confirmed") => {
  const args = (pending.resume?.arguments ?? {}) as { request_id?: string; action?: string }
  const prompt = pending.prompt as { argv?: ReadonlyArray<string>; refs?: ReadonlyArray<string> } | undefined
  return {
    status,
    request_id: args.request_id ?? requestId,
    action: args.action ?? "",
    approval: {
      id: pending.id,
      kind: pending.kind,
      title: pending.title,
      destructive: pending.destructive ?? false,
      resume: pending.resume
    },
    review: { argv: prompt?.argv ?? [], refs: prompt?.refs ?? [] }
  }
}

/** confirm: shows the pending model request of --request-id and, with --yes, accepts it so it runs once. */
const confirmVerb = async ({ line, host, session, yes }: VerbCall) => {
  const requestId = line.flags["request-id"]
  if (typeof requestId !== "string") return usage(host, "confirm needs --request-id ID (the pending model request).")
  const pending = (await session.approvals()).find(
    (record) =>
      record.status === "pending" &&
      (record.resume?.arguments as { request_id?: string } | undefined)?.request_id?.toLowerCase() ===
        requestId.toLowerCase()
  )
  if (pending === undefined)
    return print(
      host,
      failure(
        "workspaces.confirm",
        toolError("NOT_FOUND", `No pending request ${requestId}; list them with agentic-workspace approvals.`)
      )
    )
  if (!yes)
    return print(
      host,
      success("workspaces.confirm", {
        summary: `Would confirm ${pending.title}; nothing was done. Add --yes to confirm.`,
        data: shownApproval(pending, requestId, "needs_confirmation")
      })
    )
  const decided = await session.preprocess(`/accept ${pending.id}`)
  return print(
    host,
    decided.decided === undefined
      ? failure("workspaces.confirm", toolError("APPROVAL_DENIED", decided.text))
      : success("workspaces.confirm", {
          summary: `Confirmed ${pending.title}; the model's same request now runs once.`,
          data: shownApproval(pending, requestId, "confirmed")
        })
  )
}

/** review: the status and every page of changes. */
const reviewVerb = async ({ host, session }: VerbCall, status: Envelope, contextId: string) => {
  const changes = await allChanges(session, contextId)
  if ("ok" in changes) return print(host, changes as Envelope)
  return print(
    host,
    success("workspaces.review", {
      summary: `${(changes.entries as Array<unknown>).length} change(s) to review.`,
      data: { status: status.data, changes }
    })
  )
}

/** changes: one page (--limit, --offset), bound to the snapshot of offset 0. */
const changesVerb = async ({ line, host, session }: VerbCall, contextId: string) => {
  const limit = intFlag(line, "limit", 32)
  const offset = intFlag(line, "offset", 0)
  if (limit === undefined || offset === undefined)
    return usage(host, "--limit and --offset take integers (limit 1-64, offset 0-100000).")
  const first = await session.call("read_workspace", { context_id: contextId, view: "changes", offset: 0, limit })
  if (offset === 0 || !first.ok) return print(host, first)
  return print(
    host,
    await session.call("read_workspace", {
      context_id: contextId,
      view: "changes",
      offset,
      limit,
      read_snapshot: (first.data as { read_snapshot: string }).read_snapshot
    })
  )
}

/** The action fields of commit MESSAGE | push REMOTE BRANCH | branch NAME [START], or undefined for other operands. */
const actionFieldsOf = (sub: string, rest: ReadonlyArray<string>): Record<string, unknown> | undefined =>
  sub === "commit" && rest.length === 1
    ? { action: "commit", message: rest[0] }
    : sub === "push" && rest.length === 2
      ? { action: "push", remote: rest[0], branch: rest[1] }
      : sub === "branch" && (rest.length === 1 || rest.length === 2)
        ? { action: "branch_create", name: rest[0], ...defined({ start_point: rest[1] }) }
        : undefined

/** Without --yes: the review the confirmation would show (its guide, argv and refs), read without staging anything. */
const dryRunVerb = async ({ host, session, sub }: VerbCall, fields: Record<string, unknown>, args: ActionInput) => {
  const reviewed = await session.runtime!.run(withOwnStore(actionTool, Effect.either(dryReview(args))))
  if (Either.isLeft(reviewed)) return print(host, failure(`workspaces.${sub}`, reviewed.left))
  const review = reviewed.right
  return print(
    host,
    success(`workspaces.${sub}`, {
      summary: `Would run ${fields["action"]}: ${review.guide} Nothing was done; add --yes to do it.`,
      data: {
        status: "needs_confirmation",
        action: fields["action"],
        guide: review.guide,
        review: { argv: review.argv, refs: review.refs }
      }
    })
  )
}

/** commit, push, branch: the user's own action with a fresh request id, staged, accepted and run once with --yes. */
const actVerb = async (call: VerbCall, contextId: string) => {
  const { host, session, sub, rest, yes } = call
  const fields = actionFieldsOf(sub, rest)
  if (fields === undefined)
    return usage(host, "Use: workspaces commit MESSAGE | push REMOTE BRANCH | branch NAME [START] --project DIR --yes.")
  const args = { ...fields, context_id: contextId, request_id: crypto.randomUUID() }
  if (!yes) return dryRunVerb(call, fields, args as ActionInput)
  const staged = await session.call("workspace_action", args)
  const approval = (staged.data as { approval?: { id: string } } | undefined)?.approval
  if (!staged.ok || approval === undefined) return print(host, staged)
  const decided = await session.preprocess(`/accept ${approval.id}`)
  if (decided.decided === undefined)
    return print(host, failure(`workspaces.${sub}`, toolError("APPROVAL_DENIED", decided.text)))
  return print(host, await session.call("workspace_action", args))
}

/** One workspaces call on an opened session: the receipt reads and confirm, else the reads and actions of a context. */
const runVerb = async (call: VerbCall): Promise<number> => {
  const { host, session, sub } = call
  if (sub === "receipt" || sub === "reconcile") return operationVerb(call)
  if (sub === "confirm") return confirmVerb(call)
  const { status, contextId } = await contextOf(session)
  if (contextId === undefined) return print(host, status)
  if (sub === "status") return print(host, status)
  if (sub === "review") return reviewVerb(call, status, contextId)
  if (sub === "changes") return changesVerb(call, contextId)
  return actVerb(call, contextId)
}

/** The workspaces verb: the line checked, a session opened at the root, the call run, the session closed. */
export const workspacesVerb = async (
  line: ParsedLine,
  host: CliHost,
  open: (root: string, settings: Record<string, unknown>) => Promise<Session>
): Promise<number> => {
  const checked = checkLine(line, host)
  if (typeof checked === "string") return usage(host, checked)
  const session = await open(checked.root, line.settings)
  try {
    if (session.failure !== undefined) return usage(host, `${session.failure.reason}. ${session.failure.repair}`)
    return await runVerb({ ...checked, line, host, session })
  } finally {
    await session.close()
  }
}
