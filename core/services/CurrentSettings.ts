/** The settings in force for this workspace session. No tool can change them. */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import type { Settings } from "../settings/settings.ts"

/** The resolved settings, read-only for every tool. */
export class CurrentSettings extends Context.Tag("agentic-workspace/CurrentSettings")<CurrentSettings, Settings>() {
  /** A layer holding fixed settings. */
  static readonly layer = (settings: Settings) => Layer.succeed(CurrentSettings, Object.freeze({ ...settings }))
}
