/**
 * Vitest global setup: every test process (and every child it spawns, which inherits the environment)
 * keeps workspace keys in a temporary XDG_STATE_HOME, never in the real ~/.local/state, and sees one git
 * identity, the specs' own. GIT_AUTHOR_* / GIT_COMMITTER_* / EMAIL from the caller's environment (CI sets
 * them) would override the identity a spec writes into its repository's config, and a global
 * ~/.gitconfig would make "a repository without user.name" have one; both are cleared here and git's
 * global config points at a temporary file that only names a fallback identity.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const IDENTITY_ENV = [
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_AUTHOR_DATE",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "GIT_COMMITTER_DATE",
  "EMAIL"
]

export default function setup(): () => void {
  const stateHome = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-state-")))
  process.env.XDG_STATE_HOME = stateHome
  for (const name of IDENTITY_ENV) delete process.env[name]
  const gitConfig = path.join(stateHome, "gitconfig")
  fs.writeFileSync(
    gitConfig,
    "[user]\n\tname = agentic-workspace spec\n\temail = spec-fallback@agentic-workspace.invalid\n"
  )
  process.env.GIT_CONFIG_GLOBAL = gitConfig
  return () => fs.rmSync(stateHome, { recursive: true, force: true })
}
