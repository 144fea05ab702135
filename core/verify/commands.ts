/**
 * The steps the model-based sequences (core/verify/run.ts) are made of, as fast-check commands: each runs a
 * step in the model and on the real side (core/verify/world.ts) and checks they agree; and the arbitraries
 * that draw them.
 */
import fc from "fast-check"
import type { Envelope } from "../protocol/envelope.ts"
import {
  type CommandOutcome,
  completeModel,
  decideModel,
  MODEL_EXPIRY_MS,
  type Mode,
  newestFirstModel,
  proposeModel
} from "./model.ts"
import {
  bind,
  CONTENTS,
  callReal,
  checkRecords,
  FILES,
  gatedStep,
  type ModelTx,
  nextId,
  opsOf,
  type Path,
  nameOf,
  type Real,
  settingsOf,
  txKey,
  type World
} from "./world.ts"

/** workspace_edit apply of one operation on one file. */
export class ApplyCommand implements fc.AsyncCommand<World, Real> {
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
export class CommitCommand implements fc.AsyncCommand<World, Real> {
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
export class RollbackCommand implements fc.AsyncCommand<World, Real> {
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
export class CommandRunCommand implements fc.AsyncCommand<World, Real> {
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

export type Target = "bare" | "newest" | "oldest" | "unknown"

/** A user's /accept or /deny: bare, naming the newest or the oldest record the sequence staged, or an unknown id. */
export class DecideCommand implements fc.AsyncCommand<World, Real> {
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
export class ProposeCommand implements fc.AsyncCommand<World, Real> {
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
export class CompleteCommand implements fc.AsyncCommand<World, Real> {
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
export class JumpCommand implements fc.AsyncCommand<World, Real> {
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
export class TouchCommand implements fc.AsyncCommand<World, Real> {
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
export class SettingCommand implements fc.AsyncCommand<World, Real> {
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
export const toolArbitraries: Record<string, ReadonlyArray<fc.Arbitrary<fc.AsyncCommand<World, Real>>>> = {
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
