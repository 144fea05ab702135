/** Reference: "Every public tool returns" — the envelope, for every outcome. */
import * as Effect from "effect/Effect"
import type { Envelope } from "../../core/protocol/envelope.ts"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { failure, success } from "../../core/protocol/envelope.ts"
import { statusRegistry } from "../../core/registry.ts"
import { approvalId, callAt, gatedAt, preprocessAt, T0 } from "../support/kernel.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

/** The reference's type, written as a Schema; excess properties are errors. */
const EnvelopeSchema = Schema.Struct({
  protocol: Schema.Literal("agentic-workspace/v1"),
  ok: Schema.Boolean,
  operation: Schema.String,
  summary: Schema.String,
  retention: Schema.Struct({
    importance: Schema.Literal("low", "normal", "high", "critical"),
    facts: Schema.optional(Schema.Array(Schema.String)),
    omit_when_summarizing: Schema.optional(Schema.Array(Schema.String))
  }),
  artifacts: Schema.optional(
    Schema.Array(
      Schema.Struct({
        kind: Schema.String,
        path: Schema.String,
        sha256: Schema.String,
        bytes: Schema.Number,
        description: Schema.optional(Schema.String)
      })
    )
  ),
  data: Schema.optional(Schema.Unknown),
  error: Schema.optional(
    Schema.Struct({
      code: Schema.String,
      message: Schema.String,
      details: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
    })
  )
})
const check = Schema.decodeUnknownEither(EnvelopeSchema, { onExcessProperty: "error" })

let manual: TempWorkspace
let plan: TempWorkspace
beforeAll(async () => {
  manual = await openWorkspace({ permissionMode: 0 })
  plan = await openWorkspace({ permissionMode: 1 })
})
afterAll(async () => {
  await manual.dispose()
  await plan.dispose()
})

describe("Every public tool returns the envelope", () => {
  it("every outcome — success, staged, each refusal, bad input, unknown tool, not found, the status tool — is exactly the reference's shape, ok agreeing with error", async () => {
    const staged = await gatedAt(manual, T0, { action: "write", path: "a.txt", content: "x" })
    await preprocessAt(manual, T0 + 1, `/deny ${approvalId(staged)}`)
    const envelopes = [
      staged,
      await gatedAt(manual, T0 + 2, { action: "write", path: "a.txt", content: "x" }), // APPROVAL_DENIED
      await gatedAt(plan, T0, { action: "write", path: "a.txt", content: "x" }), // APPROVAL_REQUIRED
      await gatedAt(plan, T0, { action: "write", path: "a.txt", content: "x", destructive: true }), // PROTECTED_PATH
      await gatedAt(plan, T0, { action: "write", path: "../a.txt", content: "x" }), // PATH_ESCAPE
      await callAt(plan, T0, "workspace_plan", { action: "propose", title: "t", objective: "o", steps: ["s"] }),
      await callAt(plan, T0, "workspace_plan", { action: "current" }),
      await callAt(plan, T0, "workspace_plan", { action: "list" }),
      await callAt(plan, T0, "workspace_plan", { action: "complete" }),
      await callAt(plan, T0, "workspace_plan", { action: "show", plan_id: "plan_zz" }),
      await plan.call("workspace_notes", { action: "write", name: "n", content: "c" }),
      await plan.call("workspace_notes", { action: "append", name: "n", content: "c" }),
      await plan.call("workspace_notes", { action: "read", name: "n" }),
      await plan.call("workspace_notes", { action: "list" }),
      await plan.call("workspace_notes", { action: "delete", name: "n" }),
      await plan.call("workspace_notes", { action: "delete", name: "n" }),
      await plan.call("workspace_notes", { action: "nope" }),
      await plan.call("workspace_notes", "not an object"),
      await plan.call("no_such_tool", {}),
      await Effect.runPromise(
        statusRegistry("the root is gone", "Pass --root.").call(
          "agentic_workspace_status",
          {}
        ) as Effect.Effect<Envelope>
      )
    ]
    for (const envelope of envelopes) {
      const decoded = check(envelope)
      expect(Either.isRight(decoded), `${envelope.operation}: ${JSON.stringify(envelope).slice(0, 200)}`).toBe(true)
      expect(envelope.ok).toBe(envelope.error === undefined)
      expect(envelope.operation).toMatch(/^[a-z_]+\.[a-z_]+$/)
      if (!envelope.ok) expect(envelope.summary).toBe(`${envelope.error!.code}: ${envelope.error!.message}`)
      // JSON-clean: what a host prints is what the model gets
      expect(JSON.parse(JSON.stringify(envelope))).toEqual(envelope)
    }
    expect(new Set(envelopes.filter((e) => !e.ok).map((e) => e.error!.code))).toEqual(
      new Set([
        "APPROVAL_DENIED",
        "APPROVAL_REQUIRED",
        "PROTECTED_PATH",
        "PATH_ESCAPE",
        "TRANSACTION_STATE",
        "NOT_FOUND",
        "INVALID_INPUT",
        "RUNTIME_UNAVAILABLE"
      ])
    )
  })

  it("success(): retention defaults to normal; empty artifacts and absent data are left out", () => {
    expect(success("x.y", { summary: "done", artifacts: [] })).toEqual({
      protocol: "agentic-workspace/v1",
      ok: true,
      operation: "x.y",
      summary: "done",
      retention: { importance: "normal" }
    })
    const artifact = { kind: "diff", path: ".agentic/x.diff", sha256: "0".repeat(64), bytes: 3 }
    expect(
      success("x.y", {
        summary: "s",
        data: { a: 1 },
        artifacts: [artifact],
        retention: { importance: "low", facts: ["f"] }
      })
    ).toEqual({
      protocol: "agentic-workspace/v1",
      ok: true,
      operation: "x.y",
      summary: "s",
      retention: { importance: "low", facts: ["f"] },
      artifacts: [artifact],
      data: { a: 1 }
    })
  })

  it("failure(): the summary repeats code and message; retention is high and names the failure", () => {
    expect(failure("x.y", { code: "NOT_FOUND", message: "No plan." })).toEqual({
      protocol: "agentic-workspace/v1",
      ok: false,
      operation: "x.y",
      summary: "NOT_FOUND: No plan.",
      retention: { importance: "high", facts: ["x.y failed: NOT_FOUND"] },
      error: { code: "NOT_FOUND", message: "No plan." }
    })
  })
})
