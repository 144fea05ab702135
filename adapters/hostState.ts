/**
 * `.agentic/host.json`: the settings a long-running host (the MCP server) runs with, written by the
 * host at start and removed at a clean stop, never by a tool (`.agentic/` is protected from tool
 * writes). The CLI reads it to report the server's true mode, and warns when its own flags differ.
 */
import * as Effect from "effect/Effect"
import type { WorkspaceRuntime } from "../core/runtime.ts"
import type { Settings } from "../core/settings/settings.ts"
import { HOST_STATE_FILE, type HostState, HostStateSchema } from "../core/store/hostState.ts"
import { StateStore } from "../core/store/StateStore.ts"

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

/**
 * Reads the host state, if a host wrote one. It is decoded against its Schema (core/store/hostState.ts): a
 * file that is not a host state (corrupt, planted) is read here as no recorded server, so the CLI reports
 * its own settings instead of trusting it.
 */
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
