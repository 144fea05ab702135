/**
 * The model-based test of the approval semantics: random sequences of gated tool calls (workspace_edit
 * apply, commit, rollback; workspace_plan propose, complete), user decisions (/accept, /deny, with and
 * without id), clock jumps past expiry, file changes between approval and commit, and mode and setting
 * changes, run against a real registry over any host layer and against the reference model
 * (core/verify/model.ts). After every step the envelope's outcome (ran, staged with which id, refused
 * with which code) and the store's records must equal the model's. Host-free: the host is the layer given.
 */
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import fc from "fast-check"
import { GateFault, type GateFaultName, loadRecords } from "../gate/gate.ts"
import { preprocess } from "../gate/preprocess.ts"
import type { Envelope } from "../protocol/envelope.ts"
import { makeRegistry } from "../registry.ts"
import { type HostServices, startHost, type WorkspaceRuntime } from "../runtime.ts"
import { CurrentSettings } from "../services/CurrentSettings.ts"
import { HostFs } from "../services/HostFs.ts"
import { defaultSettings, type Settings } from "../settings/settings.ts"
import {
  ALL_CELLS,
  type CommandOutcome,
  cellKey,
  completeModel,
  decideModel,
  gateCall,
  initialModel,
  MODEL_EXPIRY_MS,
  type Mode,
  type ModelOutcome,
  type ModelState,
  newestFirstModel,
  proposeModel,
  settleRun,
  statusAt
} from "./model.ts"

/** What `verifyApprovalSemantics` takes. */
export interface VerifyOptions {
  /** The host's service layer (a fresh one per run is best; a shared one is reset between runs). */
  readonly layer: Layer.Layer<HostServices, unknown> | (() => Layer.Layer<HostServices, unknown>)
  readonly runs?: number
  readonly seed?: number
  /** Steps per sequence (default 30). */
  readonly maxSteps?: number
  /** Progress lines (e.g. to stderr). */
  readonly onProgress?: (line: string) => void
  /** Test only: a planted fault in the gate, to prove the test bites. */
  readonly fault?: GateFaultName
}

/** The report: identical for the same seed and runs, apart from fields ending in Ms or At. */
export interface VerifyReport {
  readonly ok: boolean
  readonly seed: number
  readonly runs: number
  /** Sequences executed (fast-check's runs plus its shrinking attempts). */
  readonly sequences: number
  readonly steps: number
  /** The gated tools the sequences called: workspace_edit and workspace_plan, and those of EXTRA_TOOLS the host registers. */
  readonly tools: ReadonlyArray<string>
  readonly cellsCovered: number
  readonly cellsTotal: number
  /** The shrunk failing sequence as replayable calls, and what differed; null when ok. */
  readonly counterexample: { readonly calls: ReadonlyArray<string>; readonly failure: string } | null
  readonly durationMs: number
}

const FILES = ["a.txt", "b.txt"] as const
const CONTENTS = ["one\n", "two\n", "three\n"] as const
const T0 = Date.UTC(2026, 0, 1, 12)

type Path = (typeof FILES)[number]
type TxStatus = "planned" | "committed" | "rolled_back"

interface ModelTx {
  readonly sym: string
  readonly path: Path
  readonly content: string | null
  readonly before: string | undefined
  status: TxStatus
}

/** The model side of one sequence: the gate's model plus the world it gates (files, transactions). */
interface World {
  gate: ModelState
  mode: Mode
  allow: boolean
  now: number
  files: Record<Path, string | undefined>
  txs: Array<ModelTx>
  counter: number
  /** Whether the driver can move the clock. */
  readonly clock: boolean
  /** The gated tools beyond edit and plan that the host registers (workspace_command on a host with processes). */
  readonly tools: ReadonlySet<string>
  readonly cells: Set<string>
}

/**
 * How the test reaches the system under test: in process over a runtime (with a fixed clock it sets), or
 * through another channel such as the real command line (whose clock is the machine's).
 */
export interface Driver {
  readonly call: (tool: string, args: unknown, settings: Settings) => Promise<Envelope>
  /** A user's message through the preprocessor: what was decided, or the code it was refused with. */
  readonly decide: (
    message: string,
    settings: Settings
  ) => Promise<{ readonly decided?: { readonly id: string; readonly status: string }; readonly refused?: string }>
  /** The store's records, expiry applied. */
  readonly records: (settings: Settings) => Promise<ReadonlyArray<{ readonly id: string; readonly status: string }>>
  /** The user writes (or deletes) a file of the workspace. */
  readonly write: (path: string, content: string | null) => Promise<void>
  /** Sets the time the next calls see; absent: the driver cannot move the clock (no jumps are drawn). */
  readonly setNow?: (ms: number) => void
  /** True when `records` lists only pending, approved and denied records. */
  readonly liveRecordsOnly?: boolean
}

/** The real side: the driver and the binding of the model's names to real ids. */
interface Real {
  readonly driver: Driver
  readonly ids: Map<string, string>
  steps: number
}

/** A Clock whose time is `now()` (the verify runs and the gate specs step it by hand); sleeps still sleep. */
export const fixedClock = (now: () => number): Clock.Clock => {
  const base = Clock.make()
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => now(),
    currentTimeMillis: Effect.sync(() => now()),
    unsafeCurrentTimeNanos: () => BigInt(now()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now()) * 1_000_000n),
    sleep: (duration: Duration.Duration) => base.sleep(duration)
  } as Clock.Clock
}

const settingsOf = (world: World): Settings => ({
  ...defaultSettings,
  permissionMode: world.mode,
  allowDestructiveEdits: world.allow
})

/** The in-process driver: a registry per call for the settings in force, the preprocessor, the store, HostFs; a fixed clock. */
export const runtimeDriver = (runtime: WorkspaceRuntime, fault: GateFaultName = "none"): Driver => {
  let now = T0
  const root = runtime.info.root.replace(/\/+$/, "")
  const runIn = <A, E>(settings: Settings, effect: Effect.Effect<A, E, any>): Promise<A> =>
    runtime.run(
      effect.pipe(
        Effect.provideService(CurrentSettings, settings),
        Effect.provideService(GateFault, fault),
        Effect.withClock(fixedClock(() => now))
      ) as Effect.Effect<A, E, never>
    )
  return {
    call: (tool, args, settings) => runIn(settings, makeRegistry(settings, runtime.info).call(tool, args)),
    decide: async (message, settings) => {
      const result = await runIn(settings, preprocess(message))
      return result.decided !== undefined
        ? { decided: { id: result.decided.record.id, status: result.decided.record.status } }
        : { ...(result.refused === undefined ? {} : { refused: result.refused.code }) }
    },
    records: (settings) => runIn(settings, loadRecords),
    write: (path, content) =>
      runIn(
        defaultSettings,
        Effect.flatMap(HostFs, (fs) =>
          content === null
            ? fs.remove(`${root}/${path}`).pipe(Effect.ignore)
            : fs.writeFileAtomic(`${root}/${path}`, new TextEncoder().encode(content))
        )
      ),
    setNow: (ms) => {
      now = ms
    }
  }
}

const callReal = (real: Real, world: World, tool: string, args: unknown): Promise<Envelope> => {
  real.steps++
  return real.driver.call(tool, args, settingsOf(world))
}

/** Binds a model id to a real one (first sight) or checks the binding. */
const bind = (real: Real, modelId: string, realId: string | undefined, what: string) => {
  if (realId === undefined) throw new Error(`${what}: the model names ${modelId}, the envelope names no id`)
  const bound = real.ids.get(modelId)
  if (bound === undefined) {
    for (const [other, id] of real.ids)
      if (id === realId)
        throw new Error(`${what}: the envelope names ${realId}, which is the model's ${other}, not ${modelId}`)
    real.ids.set(modelId, realId)
  } else if (bound !== realId) throw new Error(`${what}: expected ${modelId} (${bound}), the envelope names ${realId}`)
}

const nameOf = (real: Real, realId: string | undefined): string => {
  for (const [model, id] of real.ids) if (id === realId) return model
  return realId === undefined ? "(none)" : "(an id the model never staged)"
}

/** What an envelope says happened, in the model's words. */
const observed = (real: Real, envelope: Envelope): string => {
  const data = envelope.data as { status?: string; approval?: { id?: string }; noop?: boolean } | undefined
  if (envelope.ok)
    return data?.status === "pending_approval"
      ? `staged ${nameOf(real, data.approval?.id)}`
      : data?.noop === true
        ? "ran (no-op)"
        : "ran"
  const approvalId = (envelope.error?.details as { approvalId?: string } | undefined)?.approvalId
  return `refused ${envelope.error?.code}${approvalId === undefined ? "" : ` ${nameOf(real, approvalId)}`}`
}

const expected = (outcome: ModelOutcome): string => {
  switch (outcome._tag) {
    case "ran":
      return outcome.noop === true ? "ran (no-op)" : "ran"
    case "staged":
      return `staged ${outcome.id}`
    case "refused":
      return `refused ${outcome.code}${outcome.approvalId === undefined ? "" : ` ${outcome.approvalId}`}`
  }
}

/** Compares the envelope with the model's outcome, binding a freshly staged id first. */
const checkOutcome = (real: Real, envelope: Envelope, outcome: ModelOutcome, what: string) => {
  if (
    outcome._tag === "staged" &&
    outcome.fresh &&
    envelope.ok &&
    (envelope.data as { status?: string }).status === "pending_approval"
  ) {
    bind(real, outcome.id, (envelope.data as { approval?: { id?: string } }).approval?.id, what)
  }
  const got = observed(real, envelope)
  const want = expected(outcome)
  if (got !== want)
    throw new Error(
      `${what}: the model says "${want}", the registry answered "${got}"${envelope.ok ? "" : ` (${envelope.error?.message})`}`
    )
}

/** After every step: the store's records (expiry applied) equal the model's, status by status. */
const checkRecords = async (real: Real, world: World, what: string) => {
  const records = await real.driver.records(settingsOf(world))
  const live = (status: string) =>
    !real.driver.liveRecordsOnly || status === "pending" || status === "approved" || status === "denied"
  const got = records
    .filter((record) => live(record.status))
    .map((record) => `${nameOf(real, record.id)} ${record.status}`)
    .sort()
  const want = world.gate.records
    .filter((record) => live(statusAt(record, world.now)))
    .map((record) => `${record.id} ${statusAt(record, world.now)}`)
    .sort()
  if (got.join(", ") !== want.join(", "))
    throw new Error(`${what}: the store holds [${got.join(", ")}], the model [${want.join(", ")}]`)
}

const opsOf = (path: Path, content: string | null) =>
  content === null ? [{ type: "delete", path }] : [{ type: "rewrite", path, content, create_if_missing: true }]

const txKey = (tx: Pick<ModelTx, "path" | "content" | "before">) =>
  `commit ${tx.path} ${JSON.stringify(tx.content)} over ${JSON.stringify(tx.before ?? null)}`

const nextId = (world: World, prefix: string) => `${prefix}#${++world.counter}`

/** Runs a gated call in the model, checks the real envelope, and settles consumption. Returns whether it ran. */
const gatedStep = async (
  world: World,
  real: Real,
  key: string,
  destructive: boolean,
  envelope: () => Promise<Envelope>,
  what: string,
  noop = false
) => {
  const step = gateCall(
    world.gate,
    { mode: world.mode, allowDestructiveEdits: world.allow },
    { key, destructive, noop },
    world.now,
    `approval#${world.counter + 1}`
  )
  if (step.outcome._tag === "staged" && step.outcome.fresh) world.counter++
  if (step.cell !== undefined) world.cells.add(cellKey(step.cell))
  const result = await envelope()
  checkOutcome(real, result, step.outcome, what)
  world.gate = settleRun(step.state, step.outcome, result.ok)
  return { ran: step.outcome._tag === "ran", envelope: result }
}

/** workspace_edit apply of one operation on one file. */
class ApplyCommand implements fc.AsyncCommand<World, Real> {
  constructor(
    readonly path: Path,
    readonly content: string | null
  ) {}
  check = () => true
  async run(world: World, real: Real) {
    const what = this.toString()
    const call = () =>
      callReal(real, world, "workspace_edit", { action: "apply", operations: opsOf(this.path, this.content) })
    const before = world.files[this.path]
    if (this.content === null && before === undefined) return expectCode(await call(), "NOT_FOUND", what)
    if (this.content === before) return expectCode(await call(), "INVALID_INPUT", what)
    const destructive = before !== undefined
    // An identical planned transaction (same operation over the same contents) is re-used; else a new one is planned
    // once the destructive ceiling lets the call through.
    let tx = world.txs.find(
      (candidate) =>
        candidate.status === "planned" &&
        candidate.path === this.path &&
        candidate.content === this.content &&
        candidate.before === before
    )
    const reachesRecord = !(destructive && !world.allow)
    if (tx === undefined && reachesRecord) {
      tx = { sym: nextId(world, "tx"), path: this.path, content: this.content, before, status: "planned" }
      world.txs.push(tx)
    }
    const { ran, envelope } = await gatedStep(
      world,
      real,
      txKey({ path: this.path, content: this.content, before }),
      destructive,
      call,
      what
    )
    const realTx = envelope.data as
      | { transactionId?: string; approval?: { resume?: { arguments?: { transaction_id?: string } } } }
      | undefined
    const realTxId = realTx?.transactionId ?? realTx?.approval?.resume?.arguments?.transaction_id
    if (tx !== undefined && realTxId !== undefined) bind(real, tx.sym, realTxId, what)
    if (ran && tx !== undefined) commitTx(world, tx)
    await checkRecords(real, world, what)
  }
  toString = () => `workspace_edit ${JSON.stringify({ action: "apply", operations: opsOf(this.path, this.content) })}`
}

const commitTx = (world: World, tx: ModelTx) => {
  tx.status = "committed"
  world.files[tx.path] = tx.content ?? undefined
}

const expectCode = (envelope: Envelope, code: string, what: string) => {
  if (envelope.ok || envelope.error?.code !== code)
    throw new Error(
      `${what}: the model says "refused ${code}", the registry answered ${envelope.ok ? "ok" : envelope.error?.code}`
    )
}

/** workspace_edit commit of a transaction the sequence has seen (by its index among the bound ones). */
class CommitCommand implements fc.AsyncCommand<World, Real> {
  constructor(readonly index: number) {}
  check = (world: Readonly<World>) => world.txs.length > 0
  tx = (world: World) => world.txs[this.index % world.txs.length]!
  async run(world: World, real: Real) {
    const tx = this.tx(world)
    const what = this.toString()
    const id = real.ids.get(tx.sym)
    if (id === undefined) return // planned by a refused apply whose id the registry did not name: nothing to call
    const call = () => callReal(real, world, "workspace_edit", { action: "commit", transaction_id: id })
    if (tx.status === "rolled_back") return expectCode(await call(), "TRANSACTION_STATE", what)
    if (tx.status === "committed") {
      await gatedStep(world, real, txKey(tx), false, call, what, true)
      return checkRecords(real, world, what)
    }
    // A planned transaction is re-checked against the disk: a touched file that changed is a conflict.
    if (world.files[tx.path] !== tx.before) return expectCode(await call(), "EDIT_CONFLICT", what)
    const { ran } = await gatedStep(world, real, txKey(tx), tx.before !== undefined, call, what)
    if (ran) commitTx(world, tx)
    await checkRecords(real, world, what)
  }
  toString = () => `workspace_edit {"action":"commit","transaction_id":<transaction #${this.index} of those seen>}`
}

/** workspace_edit rollback (force optional) of a transaction the sequence has seen. */
class RollbackCommand implements fc.AsyncCommand<World, Real> {
  constructor(
    readonly index: number,
    readonly force: boolean
  ) {}
  check = (world: Readonly<World>) => world.txs.length > 0
  async run(world: World, real: Real) {
    const tx = world.txs[this.index % world.txs.length]!
    const what = this.toString()
    const id = real.ids.get(tx.sym)
    if (id === undefined) return
    const call = () =>
      callReal(real, world, "workspace_edit", {
        action: "rollback",
        transaction_id: id,
        ...(this.force ? { force: true } : {})
      })
    if (tx.status === "planned") return expectCode(await call(), "TRANSACTION_STATE", what)
    if (tx.status === "rolled_back") {
      await gatedStep(world, real, `rollback ${tx.sym}`, false, call, what, true)
      return checkRecords(real, world, what)
    }
    const current = world.files[tx.path]
    const changed = current !== (tx.content ?? undefined) && current !== tx.before
    if (changed && !this.force) return expectCode(await call(), "EDIT_CONFLICT", what)
    // Its own approval hash: the transaction, force, and the current contents of its paths.
    const { ran } = await gatedStep(
      world,
      real,
      `rollback ${tx.sym} force=${this.force} over ${JSON.stringify(current ?? null)}`,
      this.force,
      call,
      what
    )
    if (ran) {
      tx.status = "rolled_back"
      world.files[tx.path] = tx.before
    }
    await checkRecords(real, world, what)
  }
  toString = () =>
    `workspace_edit {"action":"rollback","transaction_id":<transaction #${this.index} of those seen>${this.force ? ',"force":true' : ""}}`
}

/**
 * workspace_command run of `echo <word>` (a real process on a host that has them): never destructive, its
 * approval bound to the argv, cwd, timeout and sandboxing, so `echo one` and `echo two` are two operations.
 */
class CommandRunCommand implements fc.AsyncCommand<World, Real> {
  constructor(readonly word: "one" | "two") {}
  check = (world: Readonly<World>) => world.tools.has("workspace_command")
  async run(world: World, real: Real) {
    const what = this.toString()
    const call = () =>
      callReal(real, world, "workspace_command", { action: "run", executable: "echo", args: [this.word] })
    const { envelope } = await gatedStep(world, real, `command run echo ${this.word}`, false, call, what)
    const data = envelope.data as { status?: string; exitCode?: number } | undefined
    if (envelope.ok && data?.status !== "pending_approval" && data?.exitCode !== 0)
      throw new Error(`${what}: ran, but echo did not exit 0 (${JSON.stringify(data)})`)
    await checkRecords(real, world, what)
  }
  toString = () => `workspace_command ${JSON.stringify({ action: "run", executable: "echo", args: [this.word] })}`
}

type Target = "bare" | "newest" | "oldest" | "unknown"

/** A user's /accept or /deny: bare, naming the newest or the oldest record the sequence staged, or an unknown id. */
class DecideCommand implements fc.AsyncCommand<World, Real> {
  constructor(
    readonly verb: "accept" | "deny",
    readonly target: Target
  ) {}
  check = () => true
  async run(world: World, real: Real) {
    const what = this.toString()
    const ordered = newestFirstModel(world.gate.records)
    const modelId =
      this.target === "newest" ? ordered[0]?.id : this.target === "oldest" ? ordered[ordered.length - 1]?.id : undefined
    if ((this.target === "newest" || this.target === "oldest") && modelId === undefined) return
    const realId =
      this.target === "unknown" ? "approval_0000unknown" : modelId === undefined ? undefined : real.ids.get(modelId)
    const { outcome, state } = decideModel(
      world.gate,
      {
        verb: this.verb,
        ...(this.target === "unknown" ? { id: "approval_0000unknown" } : modelId === undefined ? {} : { id: modelId })
      },
      world.now
    )
    real.steps++
    const result = await real.driver.decide(
      `/${this.verb}${realId === undefined ? "" : ` ${realId}`}`,
      settingsOf(world)
    )
    const got =
      result.decided !== undefined
        ? `decided ${nameOf(real, result.decided.id)} ${result.decided.status}`
        : `refused ${result.refused}`
    const want = describeDecision(outcome)
    if (got !== want) throw new Error(`${what}: the model says "${want}", the preprocessor answered "${got}"`)
    world.gate = state
    await checkRecords(real, world, what)
  }
  toString = () =>
    `/${this.verb}${this.target === "bare" ? "" : this.target === "unknown" ? " approval_0000unknown" : ` <the ${this.target} record>`}`
}

const describeDecision = (outcome: CommandOutcome) =>
  outcome._tag === "decided" ? `decided ${outcome.id} ${outcome.status}` : `refused ${outcome.code}`

/** workspace_plan propose (not registered in Auto). */
class ProposeCommand implements fc.AsyncCommand<World, Real> {
  check = () => true
  async run(world: World, real: Real) {
    const what = this.toString()
    const envelope = await callReal(real, world, "workspace_plan", {
      action: "propose",
      title: "Change the files",
      objective: "Edit a.txt and b.txt",
      steps: ["edit the files"]
    })
    if (world.mode === 2) return expectCode(envelope, "TOOL_DISABLED", what)
    const id = nextId(world, "plan")
    const proposed = proposeModel(world.gate, world.now, id)
    if (!envelope.ok)
      throw new Error(
        `${what}: the model says "proposed", the registry answered ${envelope.error?.code}: ${envelope.error?.message}`
      )
    bind(real, id, (envelope.data as { planId?: string }).planId, what)
    world.gate = proposed.state
    await checkRecords(real, world, what)
  }
  toString = () =>
    `workspace_plan {"action":"propose","title":"Change the files","objective":"Edit a.txt and b.txt","steps":["edit the files"]}`
}

/** workspace_plan complete, with the default plan or naming the newest plan the sequence proposed. */
class CompleteCommand implements fc.AsyncCommand<World, Real> {
  constructor(readonly named: boolean) {}
  check = () => true
  async run(world: World, real: Real) {
    const what = this.toString()
    const plan = newestFirstModel(world.gate.records).find((record) => record.plan)
    if (this.named && plan === undefined) return
    const envelope = await callReal(real, world, "workspace_plan", {
      action: "complete",
      ...(this.named ? { plan_id: real.ids.get(plan!.id) } : {})
    })
    if (world.mode === 2) return expectCode(envelope, "TOOL_DISABLED", what)
    const { outcome, state } = completeModel(world.gate, this.named ? plan!.id : undefined, world.now)
    const got = envelope.ok ? "completed" : `refused ${envelope.error?.code}`
    const want = outcome._tag === "completed" ? "completed" : `refused ${outcome.code}`
    if (got !== want) throw new Error(`${what}: the model says "${want}", the registry answered "${got}"`)
    world.gate = state
    await checkRecords(real, world, what)
  }
  toString = () => `workspace_plan {"action":"complete"${this.named ? ',"plan_id":<the newest plan>' : ""}}`
}

/** The clock moves on (past expiry at 24 h). */
class JumpCommand implements fc.AsyncCommand<World, Real> {
  constructor(readonly ms: number) {}
  check = (world: Readonly<World>) => world.clock
  async run(world: World, real: Real) {
    world.now += this.ms
    real.driver.setNow?.(world.now)
    await checkRecords(real, world, this.toString())
  }
  toString = () => `(the clock moves ${this.ms} ms)`
}

/** The user changes a file on disk (between approval and commit, say). */
class TouchCommand implements fc.AsyncCommand<World, Real> {
  constructor(
    readonly path: Path,
    readonly content: string | null
  ) {}
  check = () => true
  async run(world: World, real: Real) {
    await real.driver.write(this.path, this.content)
    world.files[this.path] = this.content ?? undefined
  }
  toString = () =>
    `(the user ${this.content === null ? `deletes ${this.path}` : `writes ${JSON.stringify(this.content)} to ${this.path}`})`
}

/** The user changes the permission mode or Allow destructive commits between calls. */
class SettingCommand implements fc.AsyncCommand<World, Real> {
  constructor(
    readonly mode: Mode | undefined,
    readonly allow: boolean | undefined
  ) {}
  check = () => true
  async run(world: World) {
    if (this.mode !== undefined) world.mode = this.mode
    if (this.allow !== undefined) world.allow = this.allow
  }
  toString = () =>
    this.mode !== undefined ? `(set permissionMode=${this.mode})` : `(set allowDestructiveEdits=${this.allow})`
}

const path = fc.constantFrom(...FILES)
const content = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom<string | null>(...CONTENTS) },
  { weight: 1, arbitrary: fc.constant(null) }
)

/** The calls of the gated tools beyond edit and plan, drawn only when the host registers the tool. */
const toolArbitraries: Record<string, ReadonlyArray<fc.Arbitrary<fc.AsyncCommand<World, Real>>>> = {
  workspace_command: [fc.constantFrom("one" as const, "two" as const).map((word) => new CommandRunCommand(word))]
}

/** The gated tools beyond edit and plan that the model-based test can drive. */
export const EXTRA_TOOLS: ReadonlyArray<string> = Object.keys(toolArbitraries)

/** Every command the sequences are made of, weighted towards gated calls and decisions. */
export const commandArbitraries: Array<fc.Arbitrary<fc.AsyncCommand<World, Real>>> = [
  fc.tuple(path, content).map(([p, c]) => new ApplyCommand(p, c)),
  fc.tuple(path, content).map(([p, c]) => new ApplyCommand(p, c)),
  fc.nat(8).map((index) => new CommitCommand(index)),
  fc.tuple(fc.nat(8), fc.boolean()).map(([index, force]) => new RollbackCommand(index, force)),
  fc
    .tuple(
      fc.constantFrom("accept" as const, "deny" as const),
      fc.constantFrom<Target>("bare", "newest", "oldest", "unknown")
    )
    .map(([verb, target]) => new DecideCommand(verb, target)),
  fc
    .tuple(
      fc.constantFrom("accept" as const, "accept" as const, "deny" as const),
      fc.constantFrom<Target>("bare", "newest")
    )
    .map(([verb, target]) => new DecideCommand(verb, target)),
  fc.constant(new ProposeCommand()),
  fc.boolean().map((named) => new CompleteCommand(named)),
  fc.constantFrom(60_000, 6 * 3_600_000, MODEL_EXPIRY_MS - 1, MODEL_EXPIRY_MS).map((ms) => new JumpCommand(ms)),
  fc.tuple(path, content).map(([p, c]) => new TouchCommand(p, c)),
  fc.constantFrom<Mode>(0, 0, 1, 2).map((mode) => new SettingCommand(mode, undefined)),
  fc.boolean().map((allow) => new SettingCommand(undefined, allow))
]

const scrub = (text: string, real: Real): string =>
  text.replace(/\b(approval|plan|tx)_[A-Za-z0-9]+/g, (id) => {
    const name = nameOf(real, id)
    return name.startsWith("(") ? `${id.split("_")[0]}_<id>` : name
  })

/** Resets a shared workspace between runs: the files the sequences touch and the whole of .agentic/. */
const reset = (runtime: WorkspaceRuntime, root: string) =>
  runtime.run(
    Effect.flatMap(HostFs, (fs) =>
      Effect.forEach(
        [...FILES.map((file) => `${root}/${file}`), `${root}/.agentic`],
        (abs) => fs.remove(abs, { recursive: true }).pipe(Effect.ignore),
        { discard: true }
      )
    )
  )

/**
 * Runs the model-based test: `runs` random sequences (seeded) against a registry over `layer`; on a
 * mismatch the sequence is shrunk and reported as replayable calls.
 */
export const verifyApprovalSemantics = async (options: VerifyOptions): Promise<VerifyReport> => {
  const layerOf =
    typeof options.layer === "function" ? options.layer : () => options.layer as Layer.Layer<HostServices, unknown>
  const shared =
    typeof options.layer === "function"
      ? undefined
      : await startHost(layerOf(), { ...defaultSettings, permissionMode: 0 })
  try {
    // Which of the other gated tools this host registers: their calls join the sequences.
    const probe = shared ?? (await startHost(layerOf(), { ...defaultSettings, permissionMode: 0 }))
    const tools = probe.registry.tools.map((tool) => tool.name).filter((name) => EXTRA_TOOLS.includes(name))
    if (probe !== shared) await probe.dispose()
    return await verifyWithDriver({
      ...options,
      tools,
      open: async () => {
        const runtime = shared ?? (await startHost(layerOf(), { ...defaultSettings, permissionMode: 0 }))
        if (shared !== undefined) await reset(runtime, runtime.info.root.replace(/\/+$/, ""))
        return {
          driver: runtimeDriver(runtime, options.fault ?? "none"),
          close: () => (shared === undefined ? runtime.dispose() : Promise.resolve())
        }
      }
    })
  } finally {
    if (shared !== undefined) await shared.dispose()
  }
}

/** What `verifyWithDriver` takes: a fresh workspace per sequence, reached through a driver. */
export interface DriverOptions {
  readonly open: () => Promise<{ readonly driver: Driver; readonly close: () => Promise<void> }>
  readonly runs?: number
  readonly seed?: number
  readonly maxSteps?: number
  readonly onProgress?: (line: string) => void
  /** The gated tools beyond edit and plan the system registers (see EXTRA_TOOLS); their calls join the sequences. */
  readonly tools?: ReadonlyArray<string>
}

/** The model-based test over any driver (in process, or the real command line). */
export const verifyWithDriver = async (options: DriverOptions): Promise<VerifyReport> => {
  const started = Date.now()
  const runs = options.runs ?? 100
  const seed = options.seed ?? 20261201
  const cells = new Set<string>()
  let sequences = 0
  let steps = 0
  let lastFailure = ""
  const tools = new Set((options.tools ?? []).filter((name) => EXTRA_TOOLS.includes(name)))
  // The memory host's sequences stay what they were; a host with more tools draws their calls too.
  const arbitraries = [...commandArbitraries, ...[...tools].flatMap((name) => toolArbitraries[name] ?? [])]
  const property = fc.asyncProperty(
    fc.commands(arbitraries, { maxCommands: options.maxSteps ?? 30, size: "max" }),
    async (commands) => {
      sequences++
      const { driver, close } = await options.open()
      try {
        driver.setNow?.(T0)
        const world: World = {
          gate: initialModel,
          mode: 0,
          allow: false,
          now: T0,
          files: { "a.txt": undefined, "b.txt": undefined },
          txs: [],
          counter: 0,
          cells,
          clock: driver.setNow !== undefined,
          tools
        }
        const real: Real = { driver, ids: new Map(), steps: 0 }
        try {
          await fc.asyncModelRun(() => ({ model: world, real }), commands)
        } catch (error) {
          // Generated ids are replaced by the model's names where known, else masked: the report is reproducible.
          lastFailure = scrub(error instanceof Error ? error.message : String(error), real)
          throw error
        } finally {
          steps += real.steps
        }
        if (sequences % 25 === 0)
          options.onProgress?.(`verify: ${sequences} sequences, ${cells.size}/${ALL_CELLS.length} cells`)
      } finally {
        await close()
      }
    }
  )
  const result = await fc.check(property, { numRuns: runs, seed })
  const counterexample =
    result.failed && result.counterexample !== null
      ? { calls: [...result.counterexample[0]].map((command) => String(command)), failure: lastFailure }
      : result.failed
        ? { calls: [], failure: lastFailure || String(result.errorInstance) }
        : null
  return {
    ok: !result.failed,
    seed,
    runs,
    sequences,
    steps,
    tools: ["workspace_edit", "workspace_plan", ...tools],
    cellsCovered: [...cells].filter((cell) => ALL_CELLS.some((known) => cellKey(known) === cell)).length,
    cellsTotal: ALL_CELLS.length,
    counterexample,
    durationMs: Date.now() - started
  }
}
