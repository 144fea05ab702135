/**
 * The Schemas of the approvals store (core/gate/records.ts) on exact examples: every record kind and
 * status the reference names decodes, a record missing a required field or carrying a wrong type does not,
 * a resume call keeps its shape, and the store file and the destructive reasons are checked as written.
 * A mutation run counting static mutants showed that emptying any of these Schemas went unnoticed by the
 * rules' tests, which build records as values and never decode them.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import {
  type ApprovalRecord,
  ApprovalRecordSchema,
  ApprovalStateSchema,
  ApprovalStoreSchema,
  DestructiveReasonSchema,
  type RecordKind,
  type RecordStatus
} from "../../core/gate/records.ts"

const KINDS: ReadonlyArray<RecordKind> = ["transaction", "command", "vcs", "browser", "web", "agent", "plan"]
const STATUSES: ReadonlyArray<RecordStatus> = [
  "pending",
  "approved",
  "denied",
  "consumed",
  "completed",
  "superseded",
  "expired"
]

const record = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: "apr_0123456789abcdef",
  kind: "command",
  status: "pending",
  title: "run npm test",
  createdAt: "2026-06-01T12:00:00.000Z",
  hash: "a".repeat(64),
  tool: "workspace_command",
  operation: "run",
  resume: { tool: "workspace_command", arguments: { action: "run", executable: "npm", args: ["test"] } },
  mac: "b".repeat(64),
  ...overrides
})

const decodeRecord = (value: unknown) => Schema.decodeUnknownEither(ApprovalRecordSchema)(value)

describe("approval record Schema", () => {
  it("decodes a record of every kind, keeping each field", () => {
    for (const kind of KINDS) {
      const decoded = decodeRecord(record({ kind }))
      expect(Either.isRight(decoded), kind).toBe(true)
      const value = Either.getOrThrow(decoded)
      expect(value).toEqual(record({ kind }))
    }
  })

  it("decodes a record in every status", () => {
    for (const status of STATUSES) {
      const decoded = decodeRecord(record({ status }))
      expect(Either.isRight(decoded), status).toBe(true)
      expect(Either.getOrThrow(decoded).status).toBe(status)
    }
  })

  it("refuses a kind or status outside the lists, and an empty one", () => {
    for (const bad of ["", "shell", "Transaction"]) {
      expect(Either.isLeft(decodeRecord(record({ kind: bad }))), `kind ${bad}`).toBe(true)
      expect(Either.isLeft(decodeRecord(record({ status: bad }))), `status ${bad}`).toBe(true)
    }
  })

  it("refuses a record missing a required field or with a field of the wrong type", () => {
    for (const field of ["id", "kind", "status", "title", "createdAt"]) {
      const { [field]: _, ...rest } = record()
      expect(Either.isLeft(decodeRecord(rest)), `without ${field}`).toBe(true)
    }
    expect(Either.isLeft(decodeRecord(record({ title: 7 })))).toBe(true)
    expect(Either.isLeft(decodeRecord(record({ destructive: "yes" })))).toBe(true)
    expect(Either.isLeft(decodeRecord(record({ revision: "2" })))).toBe(true)
  })

  it("keeps a resume call's tool and arguments, and refuses one without its tool", () => {
    const value = Either.getOrThrow(decodeRecord(record())) as ApprovalRecord
    expect(value.resume).toEqual({
      tool: "workspace_command",
      arguments: { action: "run", executable: "npm", args: ["test"] }
    })
    expect(Either.isLeft(decodeRecord(record({ resume: { arguments: {} } })))).toBe(true)
    expect(Either.isLeft(decodeRecord(record({ resume: { tool: "x", arguments: [] } })))).toBe(true)
  })
})

describe("approvals store Schemas", () => {
  it("the store file keeps version 1 and its records undecoded, and refuses another version", () => {
    const planted = { anything: true }
    const decoded = Schema.decodeUnknownEither(ApprovalStoreSchema)({ version: 1, records: [record(), planted] })
    expect(Either.getOrThrow(decoded)).toEqual({ version: 1, records: [record(), planted] })
    expect(Either.isLeft(Schema.decodeUnknownEither(ApprovalStoreSchema)({ version: 2, records: [] }))).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(ApprovalStoreSchema)({ version: 1 }))).toBe(true)
  })

  it("the decoded state decodes every record, and refuses a store holding a malformed one", () => {
    const decode = Schema.decodeUnknownEither(ApprovalStateSchema)
    expect(Either.getOrThrow(decode({ version: 1, records: [record()] }))).toEqual({ version: 1, records: [record()] })
    expect(Either.isLeft(decode({ version: 1, records: [{ id: "x" }] }))).toBe(true)
    expect(Either.isLeft(decode({ version: 2, records: [] }))).toBe(true)
    expect(Either.isLeft(decode({ records: [] }))).toBe(true)
  })

  it("a destructive reason keeps its operation, path and alternative, and needs its operation", () => {
    const decode = Schema.decodeUnknownEither(DestructiveReasonSchema)
    const reason = { operation: "delete", path: "src/a.ts", alternative: "move" }
    expect(Either.getOrThrow(decode(reason))).toEqual(reason)
    expect(Either.isLeft(decode({ path: "src/a.ts" }))).toBe(true)
    expect(Either.isLeft(decode({ operation: "delete", path: 1 }))).toBe(true)
  })
})
