/**
 * Test only: a real gated tool (declared `gate: "transaction"`, a real file write) for exercising approvals through
 * hosts before the kernel's own gated tools (workspace_edit, workspace_command) land on this branch.
 * `write` is gated as a transaction bound to the path, the content and the file's before-hash;
 * `show` is an ungated read.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { hashOperation } from "../../core/gate/hash.ts"
import { Workspace, WorkspaceWrites } from "../../core/services/Workspace.ts"
import { defineTool, gatedAction, type ToolDefinition } from "../../core/tools/Tool.ts"
import { ALL_TOOLS } from "../../core/tools/index.ts"

/** The test tool's name (never registered outside tests). */
export const GATED_TEST_TOOL = "test_gated_write"

const encoder = new TextEncoder()
const decoder = new TextDecoder()

const WritePlan = Schema.TaggedStruct("TestWrite", {
  path: Schema.String,
  content: Schema.String,
  beforeHash: Schema.NullOr(Schema.String)
})

/** A gated file writer: write {path, content}, show {path}. */
export const gatedTestTool = defineTool({
  name: GATED_TEST_TOOL,
  short: "testwrite",
  description: "Test only: writes a file through the permission gate (write), or shows one (show).",
  actions: {
    write: Schema.Struct({ path: Schema.String, content: Schema.String }),
    show: Schema.Struct({ path: Schema.String })
  },
  enabled: () => true,
  hints: { readOnlyHint: false, destructiveHint: "allowDestructiveEdits", openWorldHint: false, why: "test only" },
  probe: { args: { action: "show", path: "README.md" }, ok: true },
  handlers: {
    write: gatedAction({
      gate: "transaction",
      planSchema: WritePlan,
      load: (input: { readonly action: "write"; readonly path: string; readonly content: string }) =>
        Effect.gen(function* () {
          const ws = yield* Workspace
          const rel = yield* ws.resolve(input.path)
          yield* ws.assertWritable(rel)
          const before = yield* Effect.orElseSucceed(ws.read(rel), () => undefined)
          return { rel, beforeHash: before === undefined ? null : yield* hashOperation(decoder.decode(before)) }
        }),
      plan: (input, { rel, beforeHash }) =>
        Either.right({
          _tag: "Planned" as const,
          plan: { _tag: "TestWrite" as const, path: rel, content: input.content, beforeHash },
          work: rel,
          title: `Write ${rel}`,
          prompt: { _tag: "transaction" as const, diff: `--- ${rel}\n+++ ${rel}\n+${input.content}`, paths: [rel] },
          resume: { tool: GATED_TEST_TOOL, arguments: { action: "write", path: input.path, content: input.content } },
          preview: { data: { path: rel, diffPreview: `--- ${rel}\n+++ ${rel}\n+${input.content}` } }
        }),
      interpret: (plan) => Effect.flatMap(WorkspaceWrites, (ws) => ws.write(plan.path, encoder.encode(plan.content))),
      view: (_written, planned) =>
        Effect.succeed({
          summary: `Wrote ${planned.plan.path} (${planned.plan.content.length} characters).`,
          data: { path: planned.plan.path, written: true }
        })
    }),
    show: {
      gate: "none",
      run: (input) =>
        Effect.map(
          Effect.flatMap(Workspace, (ws) => ws.read(input.path)),
          (bytes) => ({
            summary: `${input.path}: ${bytes.length} bytes.`,
            data: { path: input.path, content: decoder.decode(bytes) }
          })
        )
    }
  }
})

/** Every core tool plus the test tool. */
export const TOOLS_WITH_TEST_TOOL: ReadonlyArray<ToolDefinition> = [...ALL_TOOLS, gatedTestTool]
