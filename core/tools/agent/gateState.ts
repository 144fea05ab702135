/**
 * What the worker reads before a gated call of a run, so a run never exceeds its parent: the host's current
 * permission mode and whether the plan the run started under is still approved.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { APPROVALS_FILE, ApprovalRecordSchema, ApprovalStoreSchema, EXPIRY_MS } from "../../gate/records.ts"
import { HOST_STATE_FILE, HostModeSchema } from "../../store/hostState.ts"
import { StateReads } from "../../store/StateStore.ts"

/**
 * The host's current permission mode, from `.agentic/host.json` (a long-running host writes it), decoded with
 * HostModeSchema (core/store/hostState.ts); absent: undefined. A file that is not JSON or holds no mode is
 * IO_ERROR naming it (StateReads.readJson): the gated call is then refused with that message.
 */
export const hostMode = Effect.gen(function* () {
  const store = yield* StateReads
  const host = yield* store.readJson(HOST_STATE_FILE, HostModeSchema)
  return host?.settings.permissionMode
})

/**
 * Whether the plan the run started under is still approved: read by id (the worker holds no approval key,
 * so it cannot sign; it only checks that the record the parent verified at entry is still approved and
 * not past its 24 hours). The store is decoded (core/gate/records.ts): a file that does not decode is
 * IO_ERROR naming it; a record that does not decode is never the approved one.
 */
export const planStillApproved = (planId: string | null) =>
  Effect.gen(function* () {
    if (planId === null) return false
    const store = yield* StateReads
    const approvals = yield* store.readJson(APPROVALS_FILE, ApprovalStoreSchema)
    const record = (approvals?.records ?? [])
      .map((candidate) => Option.getOrUndefined(decodeApprovalRecord(candidate)))
      .find((candidate) => candidate?.id === planId)
    const created = Date.parse(record?.createdAt ?? "")
    return record?.status === "approved" && !Number.isNaN(created) && created + EXPIRY_MS > Date.now()
  })

const decodeApprovalRecord = Schema.decodeUnknownOption(ApprovalRecordSchema)
