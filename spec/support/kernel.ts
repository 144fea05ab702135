/** Kernel spec helpers: running core effects at a chosen time, reading the approvals store, masking ids. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { signRecord } from "../../core/gate/gate.ts"
import { preprocess, type Preprocessed } from "../../core/gate/preprocess.ts"
import type { ApprovalRecord } from "../../core/gate/records.ts"
import type { Envelope } from "../../core/protocol/envelope.ts"
import type { KernelContext } from "../../core/tools/Tool.ts"
import { testRegistry } from "./gatedTool.ts"
import type { TempWorkspace } from "./workspace.ts"

/** A fixed instant the time-dependent specs start from. */
export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0)
export const HOUR = 60 * 60 * 1000

/** Runs a core effect with Effect's TestClock set to `ms` (the store's Clock reads it). */
export const at = <A, E>(ws: TempWorkspace, ms: number, effect: Effect.Effect<A, E, KernelContext>): Promise<A> =>
  ws.run(
    Effect.zipRight(TestClock.setTime(ms), effect).pipe(Effect.provide(TestContext.TestContext)) as Effect.Effect<
      A,
      E,
      KernelContext
    >
  )

/** The test tool called at a given time. */
export const gatedAt = (ws: TempWorkspace, ms: number, args: unknown): Promise<Envelope> =>
  at(ws, ms, testRegistry(ws.runtime).call("test_gated", args))

/** A public tool called at a given time. */
export const callAt = (ws: TempWorkspace, ms: number, tool: string, args: unknown): Promise<Envelope> =>
  at(ws, ms, ws.runtime.registry.call(tool, args))

/** The preprocessor at a given time. */
export const preprocessAt = (ws: TempWorkspace, ms: number, message: string): Promise<Preprocessed> =>
  at(ws, ms, preprocess(message))

/** The raw records in .agentic/approvals/state.json (as stored, no expiry applied). */
export const storedRecords = async (ws: TempWorkspace): Promise<ReadonlyArray<ApprovalRecord>> => {
  const text = await fs.readFile(path.join(ws.dir, ".agentic/approvals/state.json"), "utf8").catch(() => undefined)
  return text === undefined ? [] : (JSON.parse(text) as { records: ReadonlyArray<ApprovalRecord> }).records
}

/**
 * Writes the approvals store directly (test set-up of many records), each record signed with the workspace's
 * key as the toolkit would have signed it; `signed: false` lays them down unsigned, as a planted file would be.
 */
export const seedRecords = async (
  ws: TempWorkspace,
  records: ReadonlyArray<ApprovalRecord>,
  options: { readonly signed?: boolean } = {}
): Promise<void> => {
  const stored = options.signed === false ? records : await ws.run(Effect.forEach(records, signRecord))
  await fs.mkdir(path.join(ws.dir, ".agentic/approvals"), { recursive: true })
  await fs.writeFile(
    path.join(ws.dir, ".agentic/approvals/state.json"),
    JSON.stringify({ version: 1, records: stored })
  )
}

/** The approval id of a staged envelope. */
export const approvalId = (envelope: Envelope): string => (envelope.data as { approval: { id: string } }).approval.id
