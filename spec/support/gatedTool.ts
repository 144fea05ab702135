/**
 * A test tool that exercises the real gate with a real interpreter: `write` plans the exact write
 * (path, content, and the before-hash of the file it touches), the registry gates it, and only then writes
 * the file through the confined Workspace service. `peek` is ungated. Used by the gate, preprocessor
 * and two-process specs, passed to `makeRegistry(settings, host, [gatedWriteTool])`.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { sha256Bytes } from "../../core/gate/hash.ts"
import type { Prompt } from "../../core/gate/prompt.ts"
import type { RecordKind } from "../../core/gate/records.ts"
import { toolError } from "../../core/protocol/errors.ts"
import { makeRegistry, type Registry } from "../../core/registry.ts"
import { Workspace, WorkspaceWrites } from "../../core/services/Workspace.ts"
import { defineTool, gatedAction } from "../../core/tools/Tool.ts"
import type { WorkspaceRuntime } from "../../core/runtime.ts"
import type { Envelope } from "../../core/protocol/envelope.ts"

/** The gated kinds a test call may use (the reference's approval.kind values). */
export const KINDS = ["transaction", "command", "vcs", "browser", "web", "agent"] as const

/** Every run of the interpreter in this process (proves "never ran" and "ran once"). */
export const interpreterRuns: Array<{ path: string; content: string }> = []

const WritePlan = Schema.TaggedStruct("TestWrite", {
  path: Schema.String,
  content: Schema.String,
  beforeHash: Schema.NullOr(Schema.String)
})

/** A prompt of each kind for the test write, so every host's rendering is exercised. */
const promptFor = (kind: Exclude<RecordKind, "plan">, rel: string, content: string): Prompt => {
  switch (kind) {
    case "transaction":
      return { _tag: "transaction", diff: `+${content}`, paths: [rel] }
    case "command":
      return { _tag: "command", argv: ["write", rel], cwd: "" }
    case "vcs":
      return { _tag: "vcs", argv: ["git", "write", rel], cwd: "", refs: [] }
    case "web":
      return { _tag: "web", url: `https://example.invalid/${rel}` }
    case "browser":
      return { _tag: "browser", session: "test", control: `write ${rel}` }
    case "agent":
      return { _tag: "agent", objective: `write ${rel}`, reach: { commitEdits: true, commands: false, web: false } }
  }
}

type WriteInput = {
  readonly action: "write"
  readonly path: string
  readonly content: string
  readonly kind?: (typeof KINDS)[number] | undefined
  readonly destructive?: boolean | undefined
}

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
  hints: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, why: "test only" },
  probe: { args: { action: "peek", path: "README.md" }, ok: "any" },
  handlers: {
    // The kind a call names is the kind it is gated as (the test exercises every kind through one declaration).
    write: gatedAction({
      gate: "transaction",
      kindOf: (input) => input.kind ?? "transaction",
      planSchema: WritePlan,
      load: (input: WriteInput) =>
        Effect.gen(function* () {
          const ws = yield* Workspace
          const rel = yield* ws.resolve(input.path)
          const before = yield* Effect.orElseSucceed(ws.read(rel), () => undefined)
          return { rel, beforeHash: before === undefined ? null : yield* sha256Bytes(before) }
        }),
      plan: (input, { rel, beforeHash }) => {
        const kind: Exclude<RecordKind, "plan"> = input.kind ?? "transaction"
        return Either.right({
          _tag: "Planned" as const,
          plan: { _tag: "TestWrite" as const, path: rel, content: input.content, beforeHash },
          work: kind,
          title: `Write ${rel}`,
          prompt: promptFor(kind, rel, input.content),
          ...(input.destructive === true
            ? {
                destructive: {
                  command: `write ${rel}`,
                  reasons: [{ operation: "rewrite", path: rel, alternative: "replace" }]
                }
              }
            : {}),
          resume: { tool: "test_gated", arguments: { action: "write", path: rel, content: input.content } },
          preview: { data: { path: rel, committed: false } }
        })
      },
      interpret: (plan) =>
        Effect.gen(function* () {
          const ws = yield* WorkspaceWrites
          yield* ws.write(plan.path, new TextEncoder().encode(plan.content))
          interpreterRuns.push({ path: plan.path, content: plan.content })
        }),
      view: (_done, planned) =>
        Effect.succeed({ summary: `Wrote ${planned.plan.path}.`, data: { path: planned.plan.path, committed: true } })
    }),
    peek: {
      gate: "none",
      run: (input) =>
        Effect.gen(function* () {
          const ws = yield* Workspace
          const bytes = yield* ws.read(input.path)
          if (bytes.length > 1_000_000) return yield* Effect.fail(toolError("INVALID_INPUT", "too big"))
          return { summary: "peeked", data: { text: new TextDecoder().decode(bytes) } }
        })
    }
  }
})

/** A registry holding only the test tool, for a runtime's settings and host. */
export const testRegistry = (runtime: WorkspaceRuntime): Registry =>
  makeRegistry(runtime.settings, runtime.info, [gatedWriteTool as never])

/** Calls the test tool on a runtime. */
export const callGated = (runtime: WorkspaceRuntime, args: unknown): Promise<Envelope> =>
  runtime.run(testRegistry(runtime).call("test_gated", args))
