/**
 * `.agentic/host.json`: the settings a long-running host (the MCP server) runs with. The host writes it
 * (adapters/hostState.ts) at start and removes it at a clean stop; the CLI reads it to report the server's
 * true mode, and an agent run's worker reads it for the host's current mode (core/tools/agent/gateState.ts).
 * This is its Schema, decoded on every read (StateStore.readJson): a file that is not JSON or not a host
 * state is reported by name, never cast.
 */
import * as Schema from "effect/Schema"
import { Settings } from "../settings/settings.ts"

/** The file, relative to `.agentic/`. */
export const HOST_STATE_FILE = "host.json"

/** What the host records. */
export interface HostState {
  readonly version: 1
  /** "mcp" for the MCP server. */
  readonly host: string
  readonly transport: "stdio" | "http"
  /** The host's process id (absent where the host cannot tell). */
  readonly pid?: number
  readonly startedAt: string
  readonly runtime: string
  readonly root: string
  readonly settings: Settings
}

/** The Schema of host.json. */
export const HostStateSchema: Schema.Schema<HostState> = Schema.Struct({
  version: Schema.Literal(1),
  host: Schema.String,
  transport: Schema.Literal("stdio", "http"),
  pid: Schema.optional(Schema.Number),
  startedAt: Schema.String,
  runtime: Schema.String,
  root: Schema.String,
  settings: Schema.typeSchema(Settings)
})

/**
 * The part of host.json an agent run's worker needs, the host's current mode: decoded on its own so that a host
 * of another version (whose settings have other keys) still tells its mode.
 */
export const HostModeSchema = Schema.Struct({
  version: Schema.Literal(1),
  settings: Schema.Struct({ permissionMode: Schema.Literal(0, 1, 2) })
})
