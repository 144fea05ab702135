/**
 * Running git and gh for a read: what the loads and the ungated reads of workspace_vcs, the Workspaces
 * tools and workspace_inspect get instead of Processes. Its request types admit only read-only
 * subcommands (`status`, `diff`, `log`, ..., `config --get`, `remote -v`, `stash list`; gh's `auth status`,
 * `pr list`, `api --method GET`, ...), so `git commit` from a load does not type-check. The service checks
 * the same lists again before it runs anything, with the executable (git, gh), the global options
 * (`--no-pager`, `-c`) and the environment (the runner's own: no GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, ...):
 * a request built around the types fails INVALID_INPUT and nothing runs. A `-c` (or GIT_CONFIG_*) must be
 * one the hardening sets (core/exec/gitConfig.ts); the user's own program-valued keys it puts back
 * (credential helpers, ssh and gpg programs) are not checked against the user's config.
 * The one write it carries is kernel-owned: `add`, `update-index` and `write-tree` into a private copy of
 * the index under `.agentic/` (core/exec/indexCopy.ts), which also adds the unreferenced objects git
 * writes for them.
 *
 * @example
 *   const reads = yield* VcsReads
 *   const ran = yield* reads.git({ executable: "/usr/bin/git", options: ["--no-pager"], args: ["status", "-z"], cwd, timeoutMs })
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { baseOptions, DEFAULT_PROGRAM, GH_ENV, gitEnv } from "../exec/gitConfig.ts"
import { toolError, type ToolError } from "../protocol/errors.ts"
import { HostInfo } from "./HostFs.ts"
import { type ExecRequest, type ExecResult, Processes } from "./Processes.ts"

/** git subcommands that read whatever their arguments. */
export const GIT_READ_SUBCOMMANDS = [
  "cat-file",
  "check-ref-format",
  "diff",
  "diff-tree",
  "for-each-ref",
  "log",
  "ls-files",
  "ls-remote",
  "merge-base",
  "rev-list",
  "rev-parse",
  "show",
  "status",
  "symbolic-ref",
  "var"
] as const
export type GitReadSubcommand = (typeof GIT_READ_SUBCOMMANDS)[number]

/** `git config` reads (a key, a listing). */
const CONFIG_READS = ["--get", "--get-all", "--get-regexp", "--list"] as const

/** The arguments of a git read: a read subcommand, or a subcommand that also writes narrowed to its read form. */
export type GitReadArgs =
  | readonly [GitReadSubcommand, ...Array<string>]
  | readonly ["config", (typeof CONFIG_READS)[number], ...Array<string>]
  | readonly ["remote"]
  | readonly ["remote", "-v"]
  | readonly ["stash", "list", ...Array<string>]

/** The subcommands that write only the index and git's object store: allowed with GIT_INDEX_FILE naming a copy under `.agentic/`. */
export const INDEX_COPY_SUBCOMMANDS = ["add", "update-index", "write-tree"] as const
export type IndexCopyArgs = readonly [(typeof INDEX_COPY_SUBCOMMANDS)[number], ...Array<string>]

/** gh reads: the local auth state, listings and diffs, and the REST API with GET. */
export type GhReadArgs =
  | readonly ["auth", "status" | "token", ...Array<string>]
  | readonly ["issue" | "pr", "list" | "view" | "diff", ...Array<string>]
  | readonly ["api", "-i", "--method", "GET", ...Array<string>]

/** What a run needs besides its arguments: the executable found on PATH, where, and how. */
type Run = Omit<ExecRequest, "argv"> & { readonly executable: string }

/** A git read: the executable, its global options (`--no-pager` and `-c key=value` only), the arguments. */
export type GitReadRequest = Run & { readonly options: ReadonlyArray<string> } & (
    | { readonly args: GitReadArgs }
    | { readonly args: IndexCopyArgs; readonly env: { readonly GIT_INDEX_FILE: string } }
  )

/** A gh read. */
export type GhReadRequest = Run & { readonly args: GhReadArgs }

export interface VcsReadsShape {
  readonly git: (request: GitReadRequest) => Effect.Effect<ExecResult, ToolError>
  readonly gh: (request: GhReadRequest) => Effect.Effect<ExecResult, ToolError>
  /** The host's Processes.inheritsGitRepository: whether the environment git inherits names a repository. */
  readonly inheritsGitRepository?: () => boolean
}

const has = (list: ReadonlyArray<string>, value: string | undefined) => value !== undefined && list.includes(value)

/** The executable's file name without a Windows `.exe`. */
const programOf = (executable: string) => (executable.split(/[\\/]/).pop() ?? "").replace(/\.exe$/i, "").toLowerCase()

/** The variables whose value is the runner's own (a program among them: GIT_ASKPASS, GIT_PAGER, GH_PAGER). */
const FIXED_ENV: Readonly<Record<string, string>> = (() => {
  const { GIT_CEILING_DIRECTORIES: _ceiling, ...fixed } = gitEnv("/")
  return { ...fixed, ...GH_ENV }
})()

/** The variables whose value varies: the ceiling, the index copy, gh's host, the hardening as GIT_CONFIG_*. */
const FREE_ENV = /^(GIT_CEILING_DIRECTORIES|GIT_INDEX_FILE|GH_HOST|GIT_CONFIG_COUNT|GIT_CONFIG_(KEY|VALUE)_\d+)$/

/**
 * Why an environment is not the runner's (undefined when it is): a variable the runner never sets
 * (GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_DIR, ...) or a fixed one with another value.
 */
const envRefusal = (env: Readonly<Record<string, string>> | undefined): string | undefined => {
  for (const [key, value] of Object.entries(env ?? {})) {
    const fixed = FIXED_ENV[key]
    if (fixed === undefined ? !FREE_ENV.test(key) : value !== fixed) return `the environment sets ${key}`
  }
  return undefined
}

/** The hardening's own `-c` keys with their one value (core/exec/gitConfig.ts baseOptions). */
const FIXED_CONFIG: ReadonlyMap<string, string> = (() => {
  const options = baseOptions(false)
  const fixed = new Map<string, string>()
  for (let i = 0; i < options.length; i++)
    if (options[i] === "-c") {
      const pair = options[++i]!
      fixed.set(pair.slice(0, pair.indexOf("=")).toLowerCase(), pair.slice(pair.indexOf("=") + 1))
    }
  return fixed
})()

/**
 * Why a `-c key=value` (or a GIT_CONFIG_KEY/VALUE pair) is not one the hardening sets (undefined when it is):
 * a fixed option with its value, a repository's filter neutralised, or a program-valued key put back to the
 * user's own value (credential helpers, ssh and gpg programs; that value is not checked again).
 */
export const configRefusal = (key: string, value: string): string | undefined => {
  const lower = key.toLowerCase()
  const fixed = FIXED_CONFIG.get(lower)
  if (fixed !== undefined) return value === fixed ? undefined : `-c ${key} with another value`
  if (/^filter\..+\.(clean|smudge)$/.test(lower)) return value === "" ? undefined : `-c ${key} that runs a filter`
  if (/^filter\..+\.required$/.test(lower)) return value === "false" ? undefined : `-c ${key}`
  if (/^credential\.(.+\.)?helper$/.test(lower) || DEFAULT_PROGRAM[lower] !== undefined) return undefined
  return `-c ${key}, which the hardening never sets`
}

/** The `-c` pairs of the global options and of GIT_CONFIG_*: each must be the hardening's. */
const configPairsRefusal = (
  options: ReadonlyArray<string>,
  env: Readonly<Record<string, string>> | undefined
): string | undefined => {
  const pairs: Array<readonly [string, string]> = []
  for (let i = 0; i < options.length; i++)
    if (options[i] === "-c") {
      const pair = options[++i] ?? ""
      const at = pair.indexOf("=")
      pairs.push(at < 0 ? [pair, "true"] : [pair.slice(0, at), pair.slice(at + 1)])
    }
  const count = Number(env?.["GIT_CONFIG_COUNT"] ?? "0")
  for (let i = 0; i < count; i++) pairs.push([env?.[`GIT_CONFIG_KEY_${i}`] ?? "", env?.[`GIT_CONFIG_VALUE_${i}`] ?? ""])
  for (const [key, value] of pairs) {
    const why = configRefusal(key, value)
    if (why !== undefined) return why
  }
  return undefined
}

/**
 * Whether the options (before a `--`) include `--output` (diff, log, show, diff-tree: the output goes to a
 * file git opens for writing); after `--` every argument is a path.
 */
const writesOutputFile = (args: ReadonlyArray<string>): boolean => {
  for (const arg of args) {
    if (arg === "--") return false
    if (arg === "--output" || arg.startsWith("--output=")) return true
  }
  return false
}

/** Why a git request is not a read (undefined when it is one). */
export const gitReadRefusal = (request: GitReadRequest, agenticAbs: string): string | undefined => {
  if (programOf(request.executable) !== "git") return `the executable ${request.executable} is not git`
  const env = envRefusal(request.env)
  if (env !== undefined) return env
  for (let i = 0; i < request.options.length; i++) {
    const option = request.options[i]
    if (option === "-c" && i + 1 < request.options.length) i++
    else if (option !== "--no-pager") return `the global option ${option} is not one git is read with`
  }
  const config = configPairsRefusal(request.options, request.env)
  if (config !== undefined) return config
  const [sub, second] = request.args
  if (writesOutputFile(request.args)) return `git ${sub} --output, which writes a file`
  if (has(GIT_READ_SUBCOMMANDS, sub)) return undefined
  if (sub === "config") return has(CONFIG_READS, second) ? undefined : "git config that is not a read"
  if (sub === "remote")
    return request.args.length === 1 || (second === "-v" && request.args.length === 2)
      ? undefined
      : "git remote that changes the remotes"
  if (sub === "stash") return second === "list" ? undefined : "git stash that changes the stash"
  if (has(INDEX_COPY_SUBCOMMANDS, sub)) {
    const index = request.env?.["GIT_INDEX_FILE"] ?? ""
    return index.startsWith(`${agenticAbs}/`) && !index.includes("/../")
      ? undefined
      : `git ${sub} without GIT_INDEX_FILE naming a copy of the index under .agentic/`
  }
  return `git ${sub} is not a read`
}

/** The gh options that would make `gh api` send something. */
const GH_API_SENDS = /^(-X|--method|-f|-F|--field|--raw-field|--input)/

/** Why a gh request is not a read (undefined when it is one). */
export const ghReadRefusal = (request: GhReadRequest): string | undefined => {
  if (programOf(request.executable) !== "gh") return `the executable ${request.executable} is not gh`
  const env = envRefusal(request.env)
  if (env !== undefined) return env
  const config = configPairsRefusal([], request.env)
  if (config !== undefined) return config
  const [group, verb, ...rest] = request.args
  if (group === "auth") return verb === "status" || verb === "token" ? undefined : `gh auth ${verb} is not a read`
  if (group === "issue" || group === "pr")
    return verb === "list" || verb === "view" || verb === "diff" ? undefined : `gh ${group} ${verb} is not a read`
  if (group === "api")
    return verb === "-i" &&
      rest[0] === "--method" &&
      rest[1] === "GET" &&
      !rest.slice(2).some((arg) => GH_API_SENDS.test(arg))
      ? undefined
      : "gh api that is not one GET"
  return `gh ${group} is not a read`
}

const refused = (command: string, why: string) =>
  Effect.fail(
    toolError("INVALID_INPUT", `${command} was refused before it ran: ${why}. Only reads run here.`, { command })
  )

/** The service. */
export class VcsReads extends Context.Tag("agentic-workspace/VcsReads")<VcsReads, VcsReadsShape>() {
  /** Derived once from the host's Processes: every request checked, then run through `exec`. */
  static readonly layer = Layer.effect(
    VcsReads,
    Effect.gen(function* () {
      const processes = yield* Processes
      const agenticAbs = `${(yield* HostInfo).root}/.agentic`
      const run = ({ executable, ...rest }: Run, argv: ReadonlyArray<string>) =>
        processes.exec({ ...rest, argv: [executable, ...argv] })
      return {
        git: (request) => {
          const why = gitReadRefusal(request, agenticAbs)
          if (why !== undefined) return refused(`git ${request.args[0]}`, why)
          const { options, args, ...rest } = request
          return run(rest, [...options, ...args])
        },
        gh: (request) => {
          const why = ghReadRefusal(request)
          if (why !== undefined) return refused(`gh ${request.args[0]}`, why)
          const { args, ...rest } = request
          return run(rest, args)
        },
        ...(processes.inheritsGitRepository === undefined
          ? {}
          : { inheritsGitRepository: processes.inheritsGitRepository })
      } satisfies VcsReadsShape
    })
  )
}
