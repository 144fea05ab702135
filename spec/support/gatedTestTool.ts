/**
 * Test only: a real gated tool (the real `gated`, a real file write) for exercising approvals through
 * hosts before the kernel's own gated tools (workspace_edit, workspace_command) land on this branch.
 * `write` is gated as a transaction bound to the path, the content and the file's before-hash;
 * `show` is an ungated read.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { gated } from "../../core/gate/gate.ts"
import { hashOperation } from "../../core/gate/hash.ts"
import { Workspace } from "../../core/services/Workspace.ts"
import { defineTool, type ToolDefinition } from "../../core/tools/Tool.ts"
import { ALL_TOOLS } from "../../core/tools/index.ts"

/** The test tool's name (never registered outside tests). */
export const GATED_TEST_TOOL = "test_gated_write"

const encoder = new TextEncoder()
const decoder = new TextDecoder()

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
  annotations: (settings) => ({ readOnlyHint: false, destructiveHint: settings.allowDestructiveEdits, openWorldHint: false }),
  handlers: {
    write: (input) =>
      Effect.gen(function* () {
        const ws = yield* Workspace
        const rel = yield* ws.resolve(input.path)
        yield* ws.assertWritable(rel)
        const before = yield* Effect.orElseSucceed(ws.read(rel), () => undefined)
        const beforeHash = before === undefined ? null : yield* hashOperation(decoder.decode(before))
        return yield* gated(
          {
            tool: GATED_TEST_TOOL,
            operation: "testwrite.write",
            kind: "transaction",
            title: `Write ${rel}`,
            normalized: { path: rel, content: input.content, beforeHash },
            resume: { tool: GATED_TEST_TOOL, arguments: { action: "write", path: input.path, content: input.content } },
            preview: { data: { path: rel, diffPreview: `--- ${rel}\n+++ ${rel}\n+${input.content}` } }
          },
          Effect.map(ws.write(rel, encoder.encode(input.content)), () => ({
            summary: `Wrote ${rel} (${input.content.length} characters).`,
            data: { path: rel, written: true }
          }))
        )
      }),
    show: (input) =>
      Effect.map(Effect.flatMap(Workspace, (ws) => ws.read(input.path)), (bytes) => ({
        summary: `${input.path}: ${bytes.length} bytes.`,
        data: { path: input.path, content: decoder.decode(bytes) }
      }))
  }
}) as unknown as ToolDefinition

/** Every core tool plus the test tool. */
export const TOOLS_WITH_TEST_TOOL: ReadonlyArray<ToolDefinition> = [...ALL_TOOLS, gatedTestTool]
