/**
 * Vitest global setup: every test process (and every child it spawns, which inherits the environment)
 * keeps workspace keys in a temporary XDG_STATE_HOME, never in the real ~/.local/state.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export default function setup(): () => void {
  const stateHome = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-state-")))
  process.env.XDG_STATE_HOME = stateHome
  return () => fs.rmSync(stateHome, { recursive: true, force: true })
}
