/**
 * `.agentic/host.json`: the settings a long-running host (the MCP server) runs with, written by the
 * host at start and removed at a clean stop, never by a tool (`.agentic/` is protected from tool
 * writes). The CLI reads it to report the server's true mode, and warns when its own flags differ.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { WorkspaceRuntime } from "../core/runtime.ts"
import { Settings } from "../core/settings/settings.ts"
import { StateStore } from "../core/store/StateStore.ts"

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

/**
 * The Schema of host.json, decoded on every read: a file that is not a host state (corrupt, planted)
 * is read as no recorded server, so the CLI reports its own settings instead of trusting it.
 */
const HostStateSchema: Schema.Schema<HostState> = Schema.Struct({
  version: Schema.Literal(1),
  host: Schema.String,
  transport: Schema.Literal("stdio", "http"),
  pid: Schema.optional(Schema.Number),
  startedAt: Schema.String,
  runtime: Schema.String,
  root: Schema.String,
  settings: Schema.typeSchema(Settings)
})

/** Writes the host state (best effort: a read-only .agentic/ must not stop the server). */
export const writeHostState = (
  runtime: WorkspaceRuntime,
  state: Omit<HostState, "version" | "settings" | "root" | "runtime">
): Promise<void> =>
  runtime
    .run(
      Effect.flatMap(StateStore, (store) =>
        store.writeJson(HOST_STATE_FILE, {
          version: 1,
          ...state,
          runtime: runtime.info.runtime,
          root: runtime.info.root,
          settings: runtime.settings
        } satisfies HostState)
      ).pipe(Effect.ignore)
    )
    .catch(() => undefined)

/** Reads the host state, if a host wrote one. */
export const readHostState = (runtime: WorkspaceRuntime): Promise<HostState | undefined> =>
  runtime
    .run(
      Effect.flatMap(StateStore, (store) => store.readJson(HOST_STATE_FILE, HostStateSchema)).pipe(
        Effect.orElseSucceed(() => undefined)
      )
    )
    .catch(() => undefined)

/** Removes the host state when it is still this process's (another server may have started since). */
export const clearHostState = async (runtime: WorkspaceRuntime, pid: number | undefined): Promise<void> => {
  const current = await readHostState(runtime)
  if (current === undefined || current.pid !== pid) return
  await runtime
    .run(Effect.flatMap(StateStore, (store) => store.remove(HOST_STATE_FILE)).pipe(Effect.ignore))
    .catch(() => undefined)
}

/** The settings keys whose values differ between two settings. */
export const differingSettings = (a: Settings, b: Settings): ReadonlyArray<keyof Settings> =>
  (Object.keys(a) as Array<keyof Settings>).filter((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key]))
