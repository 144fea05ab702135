/**
 * A test tool that exercises the real gate with a real interpreter: `write` hashes the exact write
 * (path, content, and the before-hash of the file it touches), asks `gated(...)`, and only then writes
 * the file through the confined Workspace service. `peek` is ungated. Used by the gate, preprocessor
 * and two-process specs, passed to `makeRegistry(settings, host, [gatedWriteTool])`.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { gated } from "../../core/gate/gate.ts"
import { sha256Bytes } from "../../core/gate/hash.ts"
import type { RecordKind } from "../../core/gate/records.ts"
import { toolError } from "../../core/protocol/errors.ts"
import { makeRegistry, type Registry } from "../../core/registry.ts"
import { Workspace } from "../../core/services/Workspace.ts"
import { defineTool } from "../../core/tools/Tool.ts"
import type { WorkspaceRuntime } from "../../core/runtime.ts"
import type { Envelope } from "../../core/protocol/envelope.ts"

/** The gated kinds a test call may use (the reference's approval.kind values). */
export const KINDS = ["transaction", "command", "vcs", "browser", "web", "agent"] as const

/** Every run of the interpreter in this process (proves "never ran" and "ran once"). */
export const interpreterRuns: Array<{ path: string; content: string }> = []

export const gatedWriteTool = defineTool({
  name: "test_gated",
  short: "test",
  description: "Test-only: a gated file write through the real gate.",
  actions: {
    write: Schema.Struct({
      path: Schema.String,
      content: Schema.String,
      kind: Schema.optional(Schema.Literal(...KINDS)),
      destructive: Schema.optional(Schema.Boolean)
    }),
    peek: Schema.Struct({ path: Schema.String })
  },
  enabled: () => true,
  annotations: () => ({ readOnlyHint: false, destructiveHint: false, openWorldHint: false }),
  handlers: {
    write: (input) =>
      Effect.gen(function* () {
        const ws = yield* Workspace
        const rel = yield* ws.resolve(input.path)
        const before = yield* Effect.orElseSucceed(ws.read(rel), () => undefined)
        const beforeHash = before === undefined ? null : yield* sha256Bytes(before)
        const kind: Exclude<RecordKind, "plan"> = input.kind ?? "transaction"
        return yield* gated(
          {
            tool: "test_gated",
            operation: "test.write",
            kind,
            title: `Write ${rel}`,
            normalized: { type: "write", path: rel, content: input.content, beforeHash },
            ...(input.destructive === true
              ? { destructive: { command: `write ${rel}`, reasons: [{ operation: "rewrite", path: rel, alternative: "replace" }] } }
              : {}),
            resume: { tool: "test_gated", arguments: { action: "write", path: rel, content: input.content } },
            preview: { data: { path: rel, committed: false } }
          },
          Effect.gen(function* () {
            yield* ws.write(rel, new TextEncoder().encode(input.content))
            interpreterRuns.push({ path: rel, content: input.content })
            return { summary: `Wrote ${rel}.`, data: { path: rel, committed: true } }
          })
        )
      }),
    peek: (input) =>
      Effect.gen(function* () {
        const ws = yield* Workspace
        const bytes = yield* ws.read(input.path)
        if (bytes.length > 1_000_000) return yield* Effect.fail(toolError("INVALID_INPUT", "too big"))
        return { summary: "peeked", data: { text: new TextDecoder().decode(bytes) } }
      })
  }
})

/** A registry holding only the test tool, for a runtime's settings and host. */
export const testRegistry = (runtime: WorkspaceRuntime): Registry => makeRegistry(runtime.settings, runtime.info, [gatedWriteTool as never])

/** Calls the test tool on a runtime. */
export const callGated = (runtime: WorkspaceRuntime, args: unknown): Promise<Envelope> => runtime.run(testRegistry(runtime).call("test_gated", args))
