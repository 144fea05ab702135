/**
 * What git is run with, pure: the fixed options and environment of every call, and the overrides that
 * keep the repository's own config from making git run a program. git is the tool's own process; what
 * the repository configures is untrusted input (a cloned repository can carry any .git/config).
 */
import { toolError, type ToolError } from "../protocol/errors.ts"

/** One entry of `git config --list --show-scope -z`. */
export interface ConfigEntry {
  readonly scope: string
  readonly key: string
  readonly value: string
}

/** Parses `git config --list --show-scope -z`: `scope NUL key LF value NUL`, repeated. */
export const parseConfigList = (text: string): ReadonlyArray<ConfigEntry> => {
  const parts = text.split("\0")
  const out: Array<ConfigEntry> = []
  for (let index = 0; index + 1 < parts.length; index += 2) {
    const scope = parts[index]!
    const pair = parts[index + 1]!
    const at = pair.indexOf("\n")
    // git prints section and name lowercased and the subsection (a remote's name) as it is.
    out.push({ scope, key: at < 0 ? pair : pair.slice(0, at), value: at < 0 ? "" : pair.slice(at + 1) })
  }
  return out
}

/** A path that can never hold a hook: git looks for `/dev/null/<hook>`, which cannot exist. */
export const NO_HOOKS_PATH = "/dev/null"

/** The folder above an absolute path: where git stops looking for a repository (GIT_CEILING_DIRECTORIES). */
export const parentOf = (abs: string): string => {
  const at = abs.replace(/\/+$/, "").lastIndexOf("/")
  return at <= 0 ? "/" : abs.slice(0, at)
}

/** The environment of every git call (added to the host's). */
export const gitEnv = (ceiling: string): Record<string, string> => ({
  GIT_TERMINAL_PROMPT: "0",
  // An empty GIT_ASKPASS wins over core.askPass and SSH_ASKPASS: no prompt program runs.
  GIT_ASKPASS: "",
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_EDITOR: "true",
  GIT_SEQUENCE_EDITOR: "true",
  // status never rewrites the index to refresh stat data, so reads leave .git/ as it was.
  GIT_OPTIONAL_LOCKS: "0",
  // git never discovers a repository above the workspace root.
  GIT_CEILING_DIRECTORIES: ceiling,
  LC_ALL: "C",
  LANGUAGE: "C"
})

/** The environment gh runs with besides git's (quiet, never interactive, no pager program). */
export const GH_ENV: Readonly<Record<string, string>> = {
  GH_PROMPT_DISABLED: "1",
  GH_NO_UPDATE_NOTIFIER: "1",
  GH_PAGER: "cat",
  NO_COLOR: "1",
  CLICOLOR: "0",
  GH_SPINNER_DISABLED: "1"
}

/** The fixed options in front of every git subcommand. */
export const baseOptions = (runHooks: boolean): ReadonlyArray<string> => [
  "--no-pager",
  "-c",
  "core.quotepath=off",
  "-c",
  "color.ui=never",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "protocol.ext.allow=never",
  ...(runHooks ? [] : ["-c", `core.hooksPath=${NO_HOOKS_PATH}`])
]

const LOCAL = new Set(["local", "worktree"])

/** The program-valued keys git has a default for: the repository may not set them, the user may. */
export const DEFAULT_PROGRAM: Readonly<Record<string, string>> = {
  "core.sshcommand": "ssh",
  "gpg.program": "gpg",
  "gpg.openpgp.program": "gpg",
  "gpg.x509.program": "gpgsm",
  "gpg.ssh.program": "ssh-keygen"
}

/**
 * The `-c` overrides that neutralise program-running keys the repository's own config sets (local or
 * worktree scope, includes too), the remotes whose receive-pack program push must name itself, or a
 * refusal when git offers no neutral value (a long-running filter process). Keys from the user's global and system config are the user's own and stay as they are.
 */
export const repositoryOverrides = (
  entries: ReadonlyArray<ConfigEntry>
): { readonly args: ReadonlyArray<string>; readonly receivePackRemotes: ReadonlyArray<string> } | ToolError => {
  const args: Array<string> = []
  const set = (key: string, value: string) => args.push("-c", `${key}=${value}`)
  const local = entries.filter((entry) => LOCAL.has(entry.scope))
  const processes = local.filter((entry) => /^filter\..+\.process$/.test(entry.key)).map((entry) => entry.key)
  if (processes.length > 0) {
    return toolError(
      "VCS_FAILED",
      `The repository's own config sets ${[...new Set(processes)].join(", ")}, which makes git run a program, and workspace_vcs never lets repository-supplied config run code. Ask the user to remove it (git config --local --unset ${processes[0]}) or to move it to their global config.`,
      { keys: [...new Set(processes)] }
    )
  }
  const done = new Set<string>()
  const receivePackRemotes: Array<string> = []
  const once = (key: string, f: () => void) => {
    if (done.has(key)) return
    done.add(key)
    f()
  }
  const nonLocal = (key: string) =>
    entries.filter((entry) => !LOCAL.has(entry.scope) && entry.key === key).map((entry) => entry.value)
  for (const entry of local) {
    const key = entry.key
    const filter = /^filter\.(.+)\.(clean|smudge)$/.exec(key)
    if (filter !== null) {
      once(key, () => set(key, ""))
      once(`filter.${filter[1]}.required`, () => set(`filter.${filter[1]}.required`, "false"))
      continue
    }
    const credential = /^credential\.(?:(.+)\.)?helper$/.exec(key)
    if (credential !== null) {
      // An empty helper resets the list; the user's own helpers are added back after it.
      once(key, () => {
        set(key, "")
        for (const value of nonLocal(key)) set(key, value)
      })
      continue
    }
    const remote = /^remote\.(.+)\.receivepack$/.exec(key)
    if (remote !== null) {
      // A -c value does not replace it (git collects every value and takes the first): push passes
      // --receive-pack=git-receive-pack for this remote instead.
      once(key, () => receivePackRemotes.push(remote[1]!))
      continue
    }
    if (DEFAULT_PROGRAM[key] !== undefined) {
      once(key, () => set(key, nonLocal(key).at(-1) ?? DEFAULT_PROGRAM[key]!))
    }
  }
  return { args, receivePackRemotes }
}

/** The same configuration as environment variables, for gh (which runs git itself). */
export const configEnv = (options: ReadonlyArray<string>): Record<string, string> => {
  const pairs: Array<string> = []
  for (let index = 0; index < options.length; index++) if (options[index] === "-c") pairs.push(options[++index]!)
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) }
  pairs.forEach((pair, index) => {
    const at = pair.indexOf("=")
    env[`GIT_CONFIG_KEY_${index}`] = pair.slice(0, at)
    env[`GIT_CONFIG_VALUE_${index}`] = pair.slice(at + 1)
  })
  return env
}
