/**
 * The tools registered for the settings and host in force. workspace_inspect capabilities reads them
 * here instead of building a registry itself, so the registry, the tools and inspect import no cycle.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Settings } from "../settings/settings.ts"
import type { ToolDefinition } from "../tools/Tool.ts"
import { CurrentSettings } from "./CurrentSettings.ts"
import { HostInfo, type HostInfoShape } from "./HostFs.ts"

/** A tool's registration: the settings enable it and the host has every service it requires. */
export const isRegistered = (tool: ToolDefinition, settings: Settings, host: HostInfoShape): boolean =>
  tool.enabled(settings, host) && missingService(tool, host) === undefined

/** The first service a tool requires that the host does not provide. */
export const missingService = (tool: Pick<ToolDefinition, "requires">, host: HostInfoShape) =>
  (tool.requires ?? []).find((capability) => !host.capabilities.includes(capability))

/** The tools of a runtime: those registered (tools/list order) and every candidate it was started with. */
export interface RegisteredToolsShape {
  readonly registered: ReadonlyArray<ToolDefinition>
  /** Every candidate, registered or not: their `changes` sources and storage entries are listed whatever the settings. */
  readonly candidates: ReadonlyArray<ToolDefinition>
}

/** The registered tools service. */
export class RegisteredTools extends Context.Tag("agentic-workspace/RegisteredTools")<
  RegisteredTools,
  RegisteredToolsShape
>() {
  /**
   * The candidates, and those registered under the settings and host in force. `advertised`, once the runtime
   * has set it (after the tools that decide how they are advertised have done so), replaces the definitions:
   * what inspect's capabilities reports is then exactly what tools/list shows.
   */
  static readonly layer = (
    candidates: ReadonlyArray<ToolDefinition>,
    advertised?: { current?: ReadonlyArray<ToolDefinition> }
  ) =>
    Layer.effect(
      RegisteredTools,
      Effect.gen(function* () {
        const settings = yield* CurrentSettings
        const host = yield* HostInfo
        const byDefinition = candidates.filter((tool) => isRegistered(tool, settings, host))
        // The settings and host are fixed for the session: the advertised list is filtered once, when it is
        // first read after the runtime set it (and again only if it were ever replaced), not on every call.
        let filteredFrom: ReadonlyArray<ToolDefinition> | undefined
        let filtered: ReadonlyArray<ToolDefinition> = byDefinition
        return {
          get registered() {
            const current = advertised?.current
            if (current === undefined) return byDefinition
            if (filteredFrom !== current) {
              filtered = current.filter((tool) => isRegistered(tool, settings, host))
              filteredFrom = current
            }
            return filtered
          },
          candidates
        }
      })
    )
}
