/**
 * Both sides of one model-based sequence (core/verify/run.ts): the model's world (the gate's model, the files,
 * the transactions), the real system reached through a Driver, and the checks that compare them after every
 * step (the envelope's outcome, the store's records).
 */
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { GateFault, type GateFaultName, loadRecords } from "../gate/gate.ts"
import type { KernelContext } from "../tools/Tool.ts"
import { preprocess } from "../gate/preprocess.ts"
import type { Envelope } from "../protocol/envelope.ts"
import { makeRegistry } from "../registry.ts"
import type { WorkspaceRuntime } from "../runtime.ts"
import { CurrentSettings } from "../services/CurrentSettings.ts"
import { HostFs } from "../services/HostFs.ts"
import { defaultSettings, type Settings } from "../settings/settings.ts"
import { cellKey, gateCall, type Mode, type ModelOutcome, type ModelState, settleRun, statusAt } from "./model.ts"

export const FILES = ["a.txt", "b.txt"] as const
export const CONTENTS = ["one\n", "two\n", "three\n"] as const
export const T0 = Date.UTC(2026, 0, 1, 12)

export type Path = (typeof FILES)[number]
export type TxStatus = "planned" | "committed" | "rolled_back"

export interface ModelTx {
  readonly sym: string
  readonly path: Path
  readonly content: string | null
  readonly before: string | undefined
  status: TxStatus
}

/** The model side of one sequence: the gate's model plus the world it gates (files, transactions). */
export interface World {
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
export interface Real {
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

export const settingsOf = (world: World): Settings => ({
  ...defaultSettings,
  permissionMode: world.mode,
  allowDestructiveEdits: world.allow
})

/** The in-process driver: a registry per call for the settings in force, the preprocessor, the store, HostFs; a fixed clock. */
export const runtimeDriver = (runtime: WorkspaceRuntime, fault: GateFaultName = "none"): Driver => {
  let now = T0
  const root = runtime.info.root.replace(/\/+$/, "")
  const runIn = <A, E>(settings: Settings, effect: Effect.Effect<A, E, KernelContext | GateFault>): Promise<A> =>
    runtime.run(
      effect.pipe(
        Effect.provideService(CurrentSettings, settings),
        Effect.provideService(GateFault, fault),
        Effect.withClock(fixedClock(() => now))
      )
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

export const callReal = (real: Real, world: World, tool: string, args: unknown): Promise<Envelope> => {
  real.steps++
  return real.driver.call(tool, args, settingsOf(world))
}

/** Binds a model id to a real one (first sight) or checks the binding. */
export const bind = (real: Real, modelId: string, realId: string | undefined, what: string) => {
  if (realId === undefined) throw new Error(`${what}: the model names ${modelId}, the envelope names no id`)
  const bound = real.ids.get(modelId)
  if (bound === undefined) {
    for (const [other, id] of real.ids)
      if (id === realId)
        throw new Error(`${what}: the envelope names ${realId}, which is the model's ${other}, not ${modelId}`)
    real.ids.set(modelId, realId)
  } else if (bound !== realId) throw new Error(`${what}: expected ${modelId} (${bound}), the envelope names ${realId}`)
}

export const nameOf = (real: Real, realId: string | undefined): string => {
  for (const [model, id] of real.ids) if (id === realId) return model
  return realId === undefined ? "(none)" : "(an id the model never staged)"
}

/** What an envelope says happened, in the model's words. */
export const observed = (real: Real, envelope: Envelope): string => {
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

export const expected = (outcome: ModelOutcome): string => {
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
export const checkOutcome = (real: Real, envelope: Envelope, outcome: ModelOutcome, what: string) => {
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
export const checkRecords = async (real: Real, world: World, what: string) => {
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

export const opsOf = (path: Path, content: string | null) =>
  content === null ? [{ type: "delete", path }] : [{ type: "rewrite", path, content, create_if_missing: true }]

export const txKey = (tx: Pick<ModelTx, "path" | "content" | "before">) =>
  `commit ${tx.path} ${JSON.stringify(tx.content)} over ${JSON.stringify(tx.before ?? null)}`

export const nextId = (world: World, prefix: string) => `${prefix}#${++world.counter}`

/** Runs a gated call in the model, checks the real envelope, and settles consumption. Returns whether it ran. */
export const gatedStep = async (
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
