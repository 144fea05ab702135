/**
 * The approval rules as the Markdown tables of docs/APPROVALS.md (npm run docs:approvals), every cell computed
 * by the reference model (core/verify/model.ts), and the user-decision cases those tables show.
 */
import {
  type AgentReach,
  agentLowering,
  type CommandOutcome,
  cellOutcome,
  DESTRUCTIVE_CLASSES,
  decideModel,
  MODE_NAMES,
  MODEL_EXPIRY_MS,
  type Mode,
  type ModelCommand,
  type ModelRecord,
  type ModelState,
  OWN_STATES,
  PLAN_STATES,
  type PlanState,
  statusAt
} from "./model.ts"

/** The user-decision cases the doc tables show. */
export const DECISION_CASES: ReadonlyArray<{
  readonly name: string
  readonly build: (now: number) => { readonly state: ModelState; readonly command: ModelCommand }
}> = [
  {
    name: "bare, two pending (older a, newer b)",
    build: (now) => ({
      state: { records: [pending("a", now - 2), pending("b", now - 1)], nextSeq: 3 },
      command: { verb: "accept" }
    })
  },
  {
    name: "bare, a pending plan staged after an approval",
    build: (now) => ({
      state: { records: [pending("a", now - 2), { ...pending("p", now - 1), plan: true }], nextSeq: 3 },
      command: { verb: "accept" }
    })
  },
  {
    name: "bare, nothing pending",
    build: (now) => ({
      state: { records: [{ ...pending("a", now - 1), status: "approved" }], nextSeq: 2 },
      command: { verb: "accept" }
    })
  },
  {
    name: "id of a pending record (a, with b newer)",
    build: (now) => ({
      state: { records: [pending("a", now - 2), pending("b", now - 1)], nextSeq: 3 },
      command: { verb: "accept", id: "a" }
    })
  },
  {
    name: "id of an approved record",
    build: (now) => ({
      state: { records: [{ ...pending("a", now - 1), status: "approved" }], nextSeq: 2 },
      command: { verb: "accept", id: "a" }
    })
  },
  {
    name: "id of a denied record",
    build: (now) => ({
      state: { records: [{ ...pending("a", now - 1), status: "denied" }], nextSeq: 2 },
      command: { verb: "accept", id: "a" }
    })
  },
  {
    name: "id of a record pending for 24 h",
    build: (now) => ({
      state: { records: [pending("a", now - MODEL_EXPIRY_MS)], nextSeq: 2 },
      command: { verb: "accept", id: "a" }
    })
  },
  {
    name: "unknown id",
    build: (now) => ({
      state: { records: [pending("a", now - 1)], nextSeq: 2 },
      command: { verb: "accept", id: "zzz" }
    })
  }
]

function pending(id: string, createdAt: number): ModelRecord {
  return { id, plan: false, key: id, status: "pending", createdAt, seq: createdAt }
}

const describeCommand = (outcome: CommandOutcome): string =>
  outcome._tag === "decided" ? `decides ${outcome.id}: ${outcome.status}` : outcome.code

/** The gated call with no record of its own, by mode and plan state. */
const noRecordTable = (out: Array<string>) => {
  out.push("### Gated call, no record of the operation (own: none), by mode and plan state", "")
  out.push(`| Mode | ${PLAN_STATES.join(" | ")} |`, `|---|${PLAN_STATES.map(() => "---").join("|")}|`)
  for (const mode of [0, 1, 2] as const) {
    out.push(
      `| ${MODE_NAMES[mode]} (${mode}) | ${PLAN_STATES.map((plan) => cellOutcome({ mode, plan, own: "none", destructive: "safe" })).join(" | ")} |`
    )
  }
}

/** The gated call by its own record and the destructive ceiling, one table per mode, then Plan with an approved plan. */
const ownRecordTables = (out: Array<string>) => {
  out.push("", "### Gated call by the operation's own record and the destructive ceiling (plan state: none)", "")
  for (const mode of [0, 1, 2] as const) {
    out.push(
      `#### ${MODE_NAMES[mode]} (${mode})`,
      "",
      `| Own record | ${DESTRUCTIVE_CLASSES.join(" | ")} |`,
      `|---|${DESTRUCTIVE_CLASSES.map(() => "---").join("|")}|`
    )
    for (const own of OWN_STATES)
      out.push(
        `| ${own} | ${DESTRUCTIVE_CLASSES.map((destructive) => cellOutcome({ mode, plan: "none", own, destructive })).join(" | ")} |`
      )
    out.push("")
  }
  out.push(
    "### Plan mode with an approved plan, by own record",
    "",
    "| Own record | safe | destructive, allowed | destructive, not allowed |",
    "|---|---|---|---|"
  )
  for (const own of OWN_STATES)
    out.push(
      `| ${own} | ${DESTRUCTIVE_CLASSES.map((destructive) => cellOutcome({ mode: 1, plan: "approved", own, destructive })).join(" | ")} |`
    )
}

/** /accept and /deny over the DECISION_CASES. */
const decisionTable = (out: Array<string>, now: number) => {
  out.push("", "### /accept and /deny", "", "| Case | /accept | /deny |", "|---|---|---|")
  for (const decision of DECISION_CASES) {
    const { state, command } = decision.build(now)
    const accept = decideModel(state, { ...command, verb: "accept" }, now).outcome
    const deny = decideModel(state, { ...command, verb: "deny" }, now).outcome
    out.push(`| ${decision.name} | ${describeCommand(accept)} | ${describeCommand(deny)} |`)
  }
}

/** Each status just before and at 24 h. */
const expiryTable = (out: Array<string>, now: number) => {
  out.push(
    "",
    "### Expiry (a record created at t)",
    "",
    "| Status at t | at t + 24 h − 1 ms | at t + 24 h |",
    "|---|---|---|"
  )
  for (const status of ["pending", "approved", "denied", "consumed", "completed", "superseded"] as const) {
    const record: ModelRecord = { id: "r", plan: false, key: "k", status, createdAt: now, seq: 1 }
    out.push(
      `| ${status} | ${statusAt(record, now + MODEL_EXPIRY_MS - 1)} | ${statusAt(record, now + MODEL_EXPIRY_MS)} |`
    )
  }
}

/** The sub-agent lowering by mode and plan, without and with commands or web. */
const agentTable = (out: Array<string>) => {
  out.push(
    "",
    "### Sub-agent runs (workspace_agent run/start)",
    "",
    "| Mode, plan | neither commands nor web | commands or web |",
    "|---|---|---|"
  )
  const lowering = (mode: Mode, plan: PlanState, reach: AgentReach) => {
    const result = agentLowering(mode, plan, reach)
    return result.refused ?? `${result.gated ? "gated" : "not gated"}, commit_edits=${result.commitEdits}`
  }
  for (const [mode, plan] of [
    [0, "none"],
    [1, "none"],
    [1, "approved"],
    [2, "none"]
  ] as const) {
    out.push(
      `| ${MODE_NAMES[mode]}, plan ${plan} | ${lowering(mode, plan, { commands: false, web: false })} | ${lowering(mode, plan, { commands: true, web: false })} |`
    )
  }
}

/** What the 300-record cap drops, in order. */
const capTable = (out: Array<string>) => {
  out.push(
    "",
    "### The 300-record cap",
    "",
    "| Over the cap, dropped first (oldest first) | then | never dropped |",
    "|---|---|---|",
    "| consumed, completed, superseded, expired | approved operation approvals | pending records, live denials, approved plans (STORE_FULL instead) |",
    ""
  )
}

/**
 * The cells of the model as Markdown tables (docs/APPROVALS.md holds them between markers; a spec fails when
 * the doc and this rendering disagree). Every cell is computed by the model, none is written by hand.
 */
export const approvalTablesMarkdown = (): string => {
  const out: Array<string> = []
  const now = Date.UTC(2026, 0, 1)
  noRecordTable(out)
  ownRecordTables(out)
  decisionTable(out, now)
  expiryTable(out, now)
  agentTable(out)
  capTable(out)
  return out.join("\n")
}
