/**
 * The LM Studio plugin, built from `main(context)` with the SDK's real `tool`, `createConfigSchematics`
 * and `ChatMessage`: config parsing with defaults and bounds (through the schematics' own parser), a
 * tool call through a provided controller, and the preprocessor turning `/accept ID note` into the
 * approval block. LM Studio's controller classes are not exported at runtime, so the controller is a
 * plain object with the two methods the plugin uses; its config comes from the real schematics.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { ChatMessage, type PluginContext, type Tool } from "@lmstudio/sdk"
import { afterAll, describe, expect, it } from "vitest"
import { openNodeSession } from "../../adapters/node/host.ts"
import { configSchematics } from "../../adapters/lmstudio/src/config.ts"
import { main } from "../../adapters/lmstudio/src/index.ts"
import { makePlugin, type PluginController } from "../../adapters/lmstudio/src/plugin.ts"
import { defaultSettings, SETTING_KEYS } from "../../core/settings/settings.ts"
import { TOOLS_WITH_TEST_TOOL } from "../support/gatedTestTool.ts"
import { makeTempDir } from "../support/workspace.ts"

const manifest = JSON.parse(
  await fs.readFile(new URL("../../adapters/lmstudio/manifest.json", import.meta.url), "utf8")
)

/** A controller over a working directory and the chat's raw config fields. */
const controller = (dir: string, fields: Array<{ key: string; value: unknown }> = []): PluginController => ({
  getWorkingDirectory: () => dir,
  getPluginConfig: ((schematics: { parse: (config: unknown) => unknown }) =>
    schematics.parse({ fields })) as PluginController["getPluginConfig"]
})

/** A recording PluginContext: what main registers. */
const recordingContext = () => {
  const registered: { config?: unknown; tools?: unknown; preprocessor?: unknown } = {}
  const context = {
    withConfigSchematics: (schematics: unknown) => ((registered.config = schematics), context),
    withGlobalConfigSchematics: () => context,
    withPredictionLoopHandler: () => context,
    withPromptPreprocessor: (preprocessor: unknown) => ((registered.preprocessor = preprocessor), context),
    withToolsProvider: (provider: unknown) => ((registered.tools = provider), context),
    withGenerator: () => context
  }
  return { context: context as unknown as PluginContext, registered }
}

type SdkTool = Tool & {
  parametersSchema: {
    shape: Record<
      string,
      { _def: { typeName: string; innerType?: { _def: { values?: Array<string> } }; values?: Array<string> } }
    >
  }
  checkParameters: (args: unknown) => void
  implementation: (args: unknown, ctx: unknown) => Promise<string>
}

const toolCallContext = () => {
  const statuses: Array<string> = []
  const warnings: Array<string> = []
  return {
    statuses,
    warnings,
    ctx: {
      status: (text: string) => statuses.push(text),
      warn: (text: string) => warnings.push(text),
      signal: new AbortController().signal,
      callId: 1
    }
  }
}

/** The schematics' own parser (LM Studio calls it on the chat's stored config). */
const parseConfig = (fields: Array<{ key: string; value: unknown }>) =>
  (configSchematics as unknown as { parse: (config: unknown) => { get: (key: string) => unknown } }).parse({ fields })

const dirs: Array<string> = []
const plugin = makePlugin((root, settings) => openNodeSession(root, settings, TOOLS_WITH_TEST_TOOL))
afterAll(async () => {
  await plugin.dispose()
  await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
})
const tempDir = async () => {
  const dir = await makeTempDir("aw-lms-")
  dirs.push(dir)
  return dir
}

describe("LM Studio plugin", () => {
  it("the manifest names the node runner; main(context) registers the config schematics, the tools provider and the preprocessor", async () => {
    expect(manifest).toMatchObject({ type: "plugin", runner: "node" })
    const { context, registered } = recordingContext()
    await main(context)
    expect(registered.config).toBe(configSchematics)
    expect(typeof registered.tools).toBe("function")
    expect(typeof registered.preprocessor).toBe("function")
  })

  it("config: every setting is a field with the core's default; permissionMode is a 0-2 integer slider, default 1", async () => {
    const parsed = parseConfig([])
    for (const key of SETTING_KEYS) expect(parsed.get(key), key).toEqual(defaultSettings[key])
    const field = (
      configSchematics as unknown as {
        fields: Map<string, { valueTypeParams: Record<string, unknown>; defaultValue: unknown }>
      }
    ).fields.get("permissionMode")
    expect(field?.defaultValue).toBe(1)
    expect(field?.valueTypeParams).toMatchObject({ int: true, min: 0, max: 2, slider: { min: 0, max: 2, step: 1 } })
    const manual = parseConfig([
      { key: "permissionMode", value: 0 },
      { key: "protectedPatterns", value: ["secrets/**"] }
    ])
    expect(manual.get("permissionMode")).toBe(0)
    expect(manual.get("protectedPatterns")).toEqual(["secrets/**"])
  })

  it("config bounds: an out-of-range permissionMode or a too-small maxToolResultChars is refused; the provider then offers only the diagnostic tool naming it", async () => {
    expect(() => parseConfig([{ key: "permissionMode", value: 3 }])).toThrow(/permissionMode/)
    expect(() => parseConfig([{ key: "permissionMode", value: 1.5 }])).toThrow(/permissionMode/)
    expect(() => parseConfig([{ key: "maxToolResultChars", value: 10 }])).toThrow(/maxToolResultChars/)
    const tools = (await plugin.toolsProvider(
      controller(await tempDir(), [{ key: "permissionMode", value: 7 }])
    )) as Array<SdkTool>
    expect(tools.map((t) => t.name)).toEqual(["agentic_workspace_status"])
    const { ctx, warnings } = toolCallContext()
    const envelope = JSON.parse(await tools[0]!.implementation({}, ctx))
    expect(envelope).toMatchObject({ ok: false, error: { code: "RUNTIME_UNAVAILABLE" } })
    expect(envelope.error.message).toContain("permissionMode")
    expect(warnings[0]).toMatch(/^RUNTIME_UNAVAILABLE/)
  })

  it("tools: each registry tool is an SDK tool with a zod 3 schema (the action enum survives); a call through a provided controller writes in its working directory", async () => {
    const dir = await tempDir()
    const tools = (await plugin.toolsProvider(controller(dir, [{ key: "permissionMode", value: 2 }]))) as Array<SdkTool>
    const notes = tools.find((t) => t.name === "workspace_notes")!
    expect(notes.type).toBe("function")
    const action = notes.parametersSchema.shape["action"]!
    expect(action._def.typeName).toBe("ZodEnum")
    expect(action._def.values).toEqual(["write", "append", "read", "list", "delete"])
    expect(Object.keys(notes.parametersSchema.shape)).toEqual(
      expect.arrayContaining(["name", "memory", "content", "limit"])
    )
    const args = { action: "write", name: "from-lms", content: "hello" }
    expect(() => notes.checkParameters(args)).not.toThrow()
    const { ctx, statuses } = toolCallContext()
    const envelope = JSON.parse(await notes.implementation(args, ctx))
    expect(envelope).toMatchObject({ ok: true, operation: "notes.write" })
    expect(statuses[0]).toMatch(/^notes\.write: Wrote note from-lms/)
    expect(await fs.readFile(path.join(dir, ".agentic/notes/from-lms.md"), "utf8")).toBe("hello\n")
    // No workspace_plan in Auto: the registered set follows the settings.
    expect(tools.map((t) => t.name)).not.toContain("workspace_plan")
  })

  it("preprocessor: a staged call warns through the tool context; `/accept ID note` becomes the approval block and the resume call then runs", async () => {
    const dir = await tempDir()
    const ctl = controller(dir, [{ key: "permissionMode", value: 0 }])
    const tools = (await plugin.toolsProvider(ctl)) as Array<SdkTool>
    const writer = tools.find((t) => t.name === "test_gated_write")!
    const first = toolCallContext()
    const staged = JSON.parse(
      await writer.implementation({ action: "write", path: "x.txt", content: "approved" }, first.ctx)
    )
    expect(staged.data.status).toBe("pending_approval")
    const id = staged.data.approval.id as string
    expect(first.warnings[0]).toContain(`/accept ${id}`)

    const plain = ChatMessage.create("user", "what is pending?")
    const withMode = await plugin.promptPreprocessor(ctl, plain)
    expect(withMode).toContain("<agentic-mode>")
    expect(withMode).toContain(id)

    const replaced = await plugin.promptPreprocessor(ctl, ChatMessage.create("user", `/accept ${id} ship it`))
    expect(typeof replaced).toBe("string")
    expect(replaced as string).toMatch(
      new RegExp(
        `^<agentic-approval>\\nThe user accepted ${id} \\(transaction\\): Write x\\.txt\\.\\nUser note: ship it\\nResume now with exactly this call: test_gated_write`
      )
    )
    const resume = staged.data.approval.resume
    const done = JSON.parse(await writer.implementation(resume.arguments, toolCallContext().ctx))
    expect(done).toMatchObject({ ok: true, data: { written: true } })
    expect(await fs.readFile(path.join(dir, "x.txt"), "utf8")).toBe("approved")

    // An assistant message is never preprocessed.
    const assistant = ChatMessage.create("assistant", "/accept")
    expect(await plugin.promptPreprocessor(ctl, assistant)).toBe(assistant)
  })
})
