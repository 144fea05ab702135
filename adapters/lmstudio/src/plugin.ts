/**
 * The LM Studio plugin: a tools provider (each registry tool through the SDK's `tool()`), the prompt
 * preprocessor (the core's `/accept`, `/deny` and `<agentic-mode>` handling) and config schematics for
 * every setting. The working directory LM Studio gives the prediction is the workspace root; tool
 * status and warnings go through the SDK's tool-call context.
 */
import {
  type ChatMessage,
  type PluginContext,
  type PromptPreprocessorController,
  tool,
  type Tool,
  type ToolsProviderController
} from "@lmstudio/sdk"
import { promptLines } from "../../../core/gate/prompt.ts"
import type { Envelope } from "../../../core/protocol/envelope.ts"
import type { ToolListing } from "../../../core/registry.ts"
import { SETTING_KEYS } from "../../../core/settings/settings.ts"
import { type OpenFailure, type Session, sessionOf } from "../../open.ts"
import { startProgress } from "../../progress.ts"
import { configSchematics } from "./config.ts"
import type { LmsClient } from "./model.ts"
import { toZodParameters } from "./zod.ts"

/**
 * The controller parts the plugin uses (both LM Studio controllers have them): the working directory, the
 * chat's config, and the plugin's own client (sub-agent runs reach the loaded model through it).
 */
export type PluginController = Pick<ToolsProviderController, "getWorkingDirectory" | "getPluginConfig"> & {
  readonly client?: LmsClient
}

/** How the plugin opens a workspace (the Node host in LM Studio; tests may add tools). */
export type OpenWorkspace = (root: string, settings: Record<string, unknown>, ctl: PluginController) => Promise<Session>

/** The settings from the chat's plugin config, or why they could not be read. */
export const settingsFrom = (
  ctl: PluginController
): { readonly settings: Record<string, unknown> } | { readonly error: string } => {
  try {
    const config = ctl.getPluginConfig(configSchematics) as { get: (key: string) => unknown }
    const settings: Record<string, unknown> = {}
    for (const key of SETTING_KEYS) settings[key] = config.get(key)
    return { settings }
  } catch (error) {
    return {
      error: `the plugin config could not be read (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`
    }
  }
}

/** The parts of the plugin, over a way to open workspaces. */
export interface Plugin {
  readonly toolsProvider: (ctl: PluginController) => Promise<Array<Tool>>
  readonly promptPreprocessor: (ctl: PluginController, message: ChatMessage) => Promise<string | ChatMessage>
  readonly main: (context: PluginContext) => Promise<void>
  /** Disposes every open runtime. */
  readonly dispose: () => Promise<void>
}

/** The workspace root of a chat: the working directory LM Studio gives it, or why there is none. */
const rootOf = (ctl: PluginController): { readonly root: string } | { readonly failure: OpenFailure } => {
  try {
    return { root: ctl.getWorkingDirectory() }
  } catch (error) {
    return {
      failure: {
        _tag: "OpenFailure",
        kind: "root",
        reason: `LM Studio gave this chat no working directory (${error instanceof Error ? error.message : String(error)})`,
        repair: "Open the chat in a working directory (a project folder)."
      }
    }
  }
}

/** What a tool call tells the user through its context: its summary, and a warning when the user must act or it failed. */
const report = async (
  session: Session,
  envelope: Envelope,
  ctx: { status: (text: string) => void; warn: (text: string) => void }
) => {
  ctx.status(`${envelope.operation}: ${envelope.summary.slice(0, 200)}`)
  const data = envelope.data as { status?: string; approval?: { id?: string } } | undefined
  if (data?.status === "pending_approval" && data.approval?.id !== undefined) {
    const id = data.approval.id
    // What the user is asked, from the record's typed prompt (the diff clipped for a notice).
    const prompt = (await session.approvals()).find((record) => record.id === id)?.prompt
    const asked = prompt === undefined ? "" : `\n${promptLines(prompt, 1500).join("\n")}`
    ctx.warn(`Waiting for your decision: reply /accept ${id} or /deny ${id} <reason>.${asked}`)
  } else if (!envelope.ok && envelope.error !== undefined) {
    ctx.warn(`${envelope.error.code}: ${envelope.error.message.slice(0, 300)}`)
  }
}

/** One registry tool as an LM Studio tool: the call's envelope as JSON, its progress on the call's status. */
const toolOf = (session: Session, listing: ToolListing): Tool =>
  tool({
    name: listing.name,
    description: listing.description,
    parameters: toZodParameters(listing.inputSchema),
    implementation: async (args, ctx) => {
      // Long work (a search over a large tree, a foreground command, a large commit) shows the same
      // progress lines as MCP's notifications/progress on the tool call's status.
      const progress = startProgress(listing.name, async (update) => ctx.status(update.message))
      let envelope: Envelope
      try {
        envelope = await session.call(listing.name, args, { onProgress: progress.onProgress })
      } finally {
        progress.stop()
      }
      await report(session, envelope, ctx)
      return JSON.stringify(envelope)
    }
  })

/** Builds the plugin. Runtimes are kept per root and settings, so the tools and the preprocessor share one. */
export const makePlugin = (open: OpenWorkspace): Plugin => {
  const runtimes = new Map<string, Promise<Session>>()

  const workspaceFor = async (ctl: PluginController): Promise<Session> => {
    const read = settingsFrom(ctl)
    if ("error" in read)
      return sessionOf({
        _tag: "OpenFailure",
        kind: "settings",
        reason: read.error,
        repair: "Fix that value in the plugin's settings."
      })
    const where = rootOf(ctl)
    if ("failure" in where) return sessionOf(where.failure)
    const { root } = where
    const key = `${root}\u0000${JSON.stringify(read.settings)}`
    let opened = runtimes.get(key)
    if (opened === undefined) {
      opened = open(root, read.settings, ctl)
      runtimes.set(key, opened)
      // A failure is not cached: the user may fix the folder or the settings and try again.
      void opened.then((result) => {
        if (result.failure !== undefined) runtimes.delete(key)
      })
    }
    return opened
  }

  const toolsProvider = async (ctl: PluginController): Promise<Array<Tool>> => {
    const session = await workspaceFor(ctl)
    return session.tools().map((listing) => toolOf(session, listing))
  }

  const promptPreprocessor = async (ctl: PluginController, message: ChatMessage): Promise<string | ChatMessage> => {
    if (message.getRole() !== "user") return message
    const session = await workspaceFor(ctl)
    const text = message.getText()
    const result = await session.preprocess(text)
    return result.text === text ? message : result.text
  }

  const main = async (context: PluginContext) => {
    context.withConfigSchematics(configSchematics)
    context.withToolsProvider(toolsProvider)
    context.withPromptPreprocessor((ctl: PromptPreprocessorController, message: ChatMessage) =>
      promptPreprocessor(ctl, message)
    )
  }

  return {
    toolsProvider,
    promptPreprocessor,
    main,
    dispose: async () => {
      const all = [...runtimes.values()]
      runtimes.clear()
      for (const opened of all) await (await opened).close()
    }
  }
}
