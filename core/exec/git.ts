/**
 * Running git and gh, for workspace_vcs, the Workspaces integration and the search: allowlist, resolution on
 * PATH, the hardened argv and environment (./gitConfig.ts), the timeout from maxCommandDurationSeconds,
 * git's failures turned into codes, and the private index copy of a run that would write the index.
 * Always argv, never a shell: a read (`exec`, `must`) through VcsReads, whose types admit only read-only
 * subcommands (what a load or an ungated read may run), a write (`execWrite`, `mustWrite`) through
 * Processes, which only an interpreter has.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { toolError, type ToolError } from "../protocol/errors.ts"
import { CurrentSettings } from "../services/CurrentSettings.ts"
import { HostReads, HostInfo } from "../services/HostFs.ts"
import { join, relativeTo } from "../services/paths.ts"
import { type ExecResult, ProcessReads, Processes } from "../services/Processes.ts"
import { type GhReadArgs, type GitReadArgs, type IndexCopyArgs, VcsReads } from "../services/VcsReads.ts"
import { Workspace } from "../services/Workspace.ts"
import { allowed, allowlistName } from "./allowlist.ts"
import { resolveCwd } from "./cwd.ts"
import {
  baseOptions,
  type ConfigEntry,
  configEnv,
  GH_ENV,
  gitEnv,
  parentOf,
  parseConfigList,
  repositoryOverrides
} from "./gitConfig.ts"
import { defined } from "../text/defined.ts"

/** Output bound of reads that may be large (diffs, show). */
export const LARGE_OUTPUT_BYTES = 64 * 1024 * 1024

/** Options of one git or gh run. */
export interface RunOptions {
  readonly stdin?: string
  readonly maxOutputBytes?: number
  readonly env?: Readonly<Record<string, string>>
}

/** Options of a read: its environment may only name a copy of the index (git) or the GitHub host (gh). */
export interface ReadOptions extends Omit<RunOptions, "env"> {
  readonly env?: { readonly GIT_INDEX_FILE?: string; readonly GH_HOST?: string }
}

/** The git of one call: where it runs and how. */
export interface Git {
  /** The workspace-relative cwd ("" for the root). */
  readonly cwd: string
  readonly cwdAbs: string
  /** The argv prefix every git subcommand gets (the executable, base options and repository overrides). */
  readonly prefix: ReadonlyArray<string>
  /** Runs the read `git <args>`; a nonzero exit is returned, not failed. */
  readonly exec: (args: GitReadArgs, options?: ReadOptions) => Effect.Effect<ExecResult, ToolError, VcsReads>
  /** Runs the read `git <args>` and fails with the classified error on a nonzero exit; returns stdout. */
  readonly must: (args: GitReadArgs, options?: ReadOptions) => Effect.Effect<string, ToolError, VcsReads>
  /** Runs any `git <args>` (an interpreter's write); a nonzero exit is returned, not failed. */
  readonly execWrite: (
    args: ReadonlyArray<string>,
    options?: RunOptions
  ) => Effect.Effect<ExecResult, ToolError, Processes>
  /** Runs any `git <args>` and fails with the classified error on a nonzero exit; returns stdout. */
  readonly mustWrite: (args: ReadonlyArray<string>, options?: RunOptions) => Effect.Effect<string, ToolError, Processes>
  /** Runs `git <args>` on a copy of the index (withIndexCopy only: `env` names the copy). */
  readonly execOnCopy: (
    args: IndexCopyArgs,
    env: { readonly GIT_INDEX_FILE: string },
    options?: Omit<RunOptions, "env">
  ) => Effect.Effect<ExecResult, ToolError, VcsReads>
  /** Options push needs for `remote`: --receive-pack=git-receive-pack when the repository's config names another program. */
  readonly pushOptions: (remote: string) => ReadonlyArray<string>
  /** The `git config` the hardening is made of, as environment variables (for gh, which runs git itself). */
  readonly configEnv: Readonly<Record<string, string>>
  /** `git rev-parse --show-toplevel` in cwd, run when git was opened. */
  readonly toplevel: ExecResult
}

/** EXECUTABLE_DENIED naming the executable and the setting, unless the allowlist allows it. */
export const checkAllowed = (name: "git" | "gh", why: string) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const info = yield* HostInfo
    if (allowed(settings.executableAllowlist, name, info.platform)) return
    return yield* Effect.fail(
      toolError(
        "EXECUTABLE_DENIED",
        `${why} needs the executable "${name}", which is not on the executable allowlist, so nothing ran. Ask the user to add "${allowlistName(name, info.platform)}" to executableAllowlist.`,
        { executable: name, setting: "executableAllowlist" }
      )
    )
  })

/** Resolves `name` on PATH only (never the project's node_modules/.bin or the cwd). */
const resolveOnPath = (name: string) =>
  Effect.gen(function* () {
    const processes = yield* ProcessReads
    const workspace = yield* Workspace
    const found = yield* processes.resolve(name, join(workspace.root, "node_modules/.bin"))
    if (found._tag === "Found" && found.via === "PATH") return found.executable
    return yield* Effect.fail(
      toolError(
        "NOT_FOUND",
        `The executable "${name}" was not found on PATH, so nothing ran. Install it, or ask the user to put it on PATH.`,
        {
          executable: name
        }
      )
    )
  })

const timeoutError = (command: string, seconds: number) =>
  toolError(
    "TIMEOUT",
    `${command} did not finish within ${seconds} s (maxCommandDurationSeconds) and was killed with its process group. Retry once the cause is fixed (a remote that does not answer, a very large repository), or ask the user to raise maxCommandDurationSeconds.`,
    { command, timeoutSeconds: seconds }
  )

/** A command line as results show it. */
export const shownCommand = (name: string, args: ReadonlyArray<string>): string => {
  const text = [name, ...args]
    .map((part) => (part === "" || /[\s"'\\$`|&;<>()*?]/.test(part) ? JSON.stringify(part) : part))
    .join(" ")
  return text.length > 300 ? `${text.slice(0, 299)}…` : text
}

/** What opening git in a folder learns by running it: the config to harden against and the repository's top. */
interface Opening {
  readonly entries: ReadonlyArray<ConfigEntry>
  readonly toplevel: ExecResult
}

/** An opening kept for later calls, with the files whose state it depends on and that state. */
interface KeptOpening extends Opening {
  readonly watched: ReadonlyArray<string>
  readonly state: string
}

/** Openings by executable, folder and base options; a few folders per process at most. */
const OPENINGS = new Map<string, KeptOpening>()
const OPENINGS_MAX = 32

/**
 * The state of the watched files as one string (what each is, or that it is absent; a file's size and mtime)
 * and the newest file's mtime, or undefined when one cannot be looked at (then nothing is kept or reused).
 */
const watchedState = (watched: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const host = yield* HostReads
    // One after the other: on Node a stat is a synchronous call, and a fiber per file cost more than the
    // stats did (a log call at the top stats five: 0.40 ms side by side, 0.07 ms in turn).
    const infos = yield* Effect.forEach(watched, (abs) => Effect.either(host.stat(abs)))
    const parts: Array<string> = []
    let newest = 0
    for (const info of infos) {
      if (info._tag === "Left") return undefined
      const found = info.right
      // A host that cannot tell a file's mtime (0) cannot tell a change of the same size either.
      if (found !== undefined && found.type !== "directory" && !(found.mtimeMs > 0)) return undefined
      // A directory's own mtime moves with every lock file git writes inside it; only what it is counts.
      if (found !== undefined && found.type !== "directory") newest = Math.max(newest, found.mtimeMs)
      parts.push(
        found === undefined ? "-" : found.type === "directory" ? "d" : `${found.type}:${found.size}:${found.mtimeMs}`
      )
    }
    return { state: parts.join("|"), newest }
  })

/**
 * How long the watched files must have been unchanged before the listing ran for it to be kept: a change
 * within the filesystem's timestamp granularity of the look could leave an mtime as it was (git's own
 * "racily clean" rule, with a wide margin).
 */
const SETTLED_MS = 2000

/**
 * The files an opening depends on, or undefined when it must not be kept: every `.git` git's discovery
 * passes from cwd up to the top (a repository made or removed in between changes which one git finds), the
 * repository's own config files and HEAD (an `onbranch:` include follows it), and nothing when the
 * repository's config includes other files (their paths are not followed here, so such a repository is
 * listed afresh on every call).
 */
const watchedFiles = (
  cwdAbs: string,
  lines: ReadonlyArray<string>,
  entries: ReadonlyArray<ConfigEntry>
): ReadonlyArray<string> | undefined => {
  const [top, gitDir, commonDir] = lines
  if (top === undefined || gitDir === undefined || commonDir === undefined) return undefined
  if (!top.startsWith("/") || !gitDir.startsWith("/") || !commonDir.startsWith("/")) return undefined
  if (cwdAbs !== top && !cwdAbs.startsWith(top === "/" ? "/" : `${top}/`)) return undefined
  if (
    entries.some(
      (entry) => (entry.scope === "local" || entry.scope === "worktree") && /^include(if)?\./i.test(entry.key)
    )
  )
    return undefined
  const watched: Array<string> = []
  for (let dir = cwdAbs; ; dir = parentOf(dir)) {
    watched.push(`${dir === "/" ? "" : dir}/.git`)
    if (dir === top || dir === "/") break
  }
  for (const dir of new Set([gitDir, commonDir]))
    watched.push(`${dir}/config`, `${dir}/config.worktree`, `${dir}/HEAD`, `${dir}/commondir`)
  return watched
}

/**
 * The config listing and the repository's top for git in `cwdAbs`: two reads that run no program, side by
 * side; or, when an earlier call in this process opened the same folder and none of the files it depends on
 * changed since (same kind, size and mtime), what that call learnt, without running git. The hardening is
 * computed from it on every call either way. The user's global and system config are read with the listing
 * and kept with it: they are the user's own, never what the repository supplies.
 */
const opening = (
  executable: string,
  cwdAbs: string,
  base: ReadonlyArray<string>,
  raw: (prefix: ReadonlyArray<string>, args: GitReadArgs) => Effect.Effect<ExecResult, ToolError, VcsReads>
) =>
  Effect.gen(function* () {
    const key = [executable, cwdAbs, ...base].join("\0")
    const kept = OPENINGS.get(key)
    if (kept !== undefined) {
      if ((yield* watchedState(kept.watched))?.state === kept.state) return kept satisfies Opening
      OPENINGS.delete(key)
    }
    const startedAt = yield* Clock.currentTimeMillis
    const [listed, located] = yield* Effect.all(
      [
        raw(base, ["config", "--list", "--show-scope", "-z"]),
        raw(base, ["rev-parse", "--show-toplevel", "--path-format=absolute", "--absolute-git-dir", "--git-common-dir"])
      ],
      { concurrency: 2 }
    )
    const entries = listed.exitCode === 0 ? parseConfigList(listed.stdout) : []
    if (located.exitCode !== 0) return { entries, toplevel: located } satisfies Opening
    const lines = located.stdout.split("\n").filter((line) => line !== "")
    const toplevel: ExecResult = { ...located, stdout: `${lines[0] ?? ""}\n` }
    const watched = listed.exitCode === 0 ? watchedFiles(cwdAbs, lines, entries) : undefined
    const looked = watched === undefined ? undefined : yield* watchedState(watched)
    // Kept only when nothing it depends on changed in the SETTLED_MS before the listing started: a change
    // since then, before or after the look, shows as a newer mtime on the next call's look.
    if (watched !== undefined && looked !== undefined && looked.newest <= startedAt - SETTLED_MS) {
      if (OPENINGS.size >= OPENINGS_MAX) OPENINGS.delete(OPENINGS.keys().next().value!)
      OPENINGS.set(key, { entries, toplevel, watched, state: looked.state })
    }
    return { entries, toplevel } satisfies Opening
  })

/** A run that timed out as TIMEOUT naming the command; any other result as it is. */
const timed = (name: "git" | "gh", args: ReadonlyArray<string>, seconds: number) => (result: ExecResult) =>
  result.timedOut ? Effect.fail(timeoutError(shownCommand(name, args), seconds)) : Effect.succeed(result)

/** stdout of a run that exited 0; else the classified failure. */
export const mustSucceed = (args: ReadonlyArray<string>) => (result: ExecResult) =>
  result.exitCode === 0
    ? Effect.succeed(result.stdout)
    : Effect.fail(classifyFailure(shownCommand("git", args), result))

/** Opens git for one call in `cwd` (workspace-relative): allowlist, PATH, hardening from the repository's config. */
export const openGit = (cwd: string | undefined) =>
  Effect.gen(function* () {
    yield* checkAllowed("git", "workspace_vcs")
    const settings = yield* CurrentSettings
    const workspace = yield* Workspace
    const rel = yield* resolveCwd(cwd)
    const cwdAbs = workspace.abs(rel)
    const executable = yield* resolveOnPath("git")
    const seconds = settings.maxCommandDurationSeconds
    const env = gitEnv(parentOf(workspace.root))
    const base = baseOptions(settings.vcsRunHooks)
    const run = (options?: RunOptions) => ({
      executable,
      cwd: cwdAbs,
      env: { ...env, ...options?.env },
      timeoutMs: seconds * 1000,
      ...defined({ maxOutputBytes: options?.maxOutputBytes, stdin: options?.stdin })
    })
    const raw = (prefix: ReadonlyArray<string>, args: GitReadArgs, options?: ReadOptions) =>
      Effect.flatMap(
        Effect.flatMap(VcsReads, (reads) => reads.git({ ...run(options), options: prefix, args })),
        timed("git", args, seconds)
      )
    const { entries, toplevel } = yield* opening(executable, cwdAbs, base, raw)
    const overrides = repositoryOverrides(entries)
    if ("_tag" in overrides) return yield* Effect.fail(overrides)
    const prefix = [...base, ...overrides.args]
    const exec = (args: GitReadArgs, options?: ReadOptions) => raw(prefix, args, options)
    const execWrite = (args: ReadonlyArray<string>, options?: RunOptions) =>
      Effect.flatMap(
        Effect.flatMap(Processes, (processes) => {
          const { executable: file, ...rest } = run(options)
          return processes.exec({ ...rest, argv: [file, ...prefix, ...args] })
        }),
        timed("git", args, seconds)
      )
    const git: Git = {
      cwd: rel,
      cwdAbs,
      prefix: ["git", ...prefix],
      exec,
      must: (args, options) => Effect.flatMap(exec(args, options), mustSucceed(args)),
      execWrite,
      mustWrite: (args, options) => Effect.flatMap(execWrite(args, options), mustSucceed(args)),
      execOnCopy: (args, copyEnv, options) =>
        Effect.flatMap(
          Effect.flatMap(VcsReads, (reads) =>
            reads.git({ ...run(options), env: { ...env, ...copyEnv }, options: prefix, args })
          ),
          timed("git", args, seconds)
        ),
      pushOptions: (remote) =>
        overrides.receivePackRemotes.includes(remote) ? ["--receive-pack=git-receive-pack"] : [],
      configEnv: configEnv(prefix),
      toplevel
    }
    return git
  })

/** The repository around git's cwd: its top (workspace-relative) and the .git paths git uses. */
export interface Repository {
  /** Workspace-relative top of the working tree ("" for the root). */
  readonly top: string
  readonly topAbs: string
}

/** Finds the repository git's cwd is in; NOT_A_REPOSITORY when there is none inside the workspace. */
export const findRepository = (git: Git) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const result = git.toplevel
    if (result.exitCode !== 0) return yield* Effect.fail(classifyFailure("git rev-parse --show-toplevel", result))
    const topAbs = result.stdout.trim()
    const top = relativeTo(workspace.root, topAbs)
    if (top === undefined) {
      return yield* Effect.fail(
        toolError(
          "NOT_A_REPOSITORY",
          `cwd is inside a git repository whose top lies outside the workspace; workspace_vcs works only on repositories inside the workspace root. Open the workspace at the repository's top.`,
          {
            field: "cwd"
          }
        )
      )
    }
    return { top, topAbs } satisfies Repository
  })

/** The gh of one call: allowlist, PATH, a quiet non-interactive environment, git hardened through GIT_CONFIG_*. */
export const openGh = (git: Git) =>
  Effect.gen(function* () {
    yield* checkAllowed("gh", "This GitHub action")
    const settings = yield* CurrentSettings
    const workspace = yield* Workspace
    const executable = yield* resolveOnPath("gh")
    const seconds = settings.maxCommandDurationSeconds
    const env: Record<string, string> = {
      ...gitEnv(parentOf(workspace.root)),
      ...git.configEnv,
      ...GH_ENV
    }
    const run = (options?: RunOptions) => ({
      executable,
      cwd: git.cwdAbs,
      env: { ...env, ...options?.env },
      timeoutMs: seconds * 1000,
      ...defined({ maxOutputBytes: options?.maxOutputBytes, stdin: options?.stdin })
    })
    /** Runs the read `gh <args>`. */
    const exec = (args: GhReadArgs, options?: ReadOptions) =>
      Effect.flatMap(
        Effect.flatMap(VcsReads, (reads) => reads.gh({ ...run(options), args })),
        timed("gh", args, seconds)
      )
    /** Runs any `gh <args>` (an interpreter's write). */
    const execWrite = (args: ReadonlyArray<string>, options?: RunOptions) =>
      Effect.flatMap(
        Effect.flatMap(Processes, (processes) => {
          const { executable: file, ...rest } = run(options)
          return processes.exec({ ...rest, argv: [file, ...args] })
        }),
        timed("gh", args, seconds)
      )
    return { exec, execWrite }
  })

/** The type of an opened gh. */
export type Gh = Effect.Effect.Success<ReturnType<typeof openGh>>

/** Removes anything that looks like a GitHub token from text shown to a model. */
export const redactTokens = (text: string): string =>
  text.replace(/\b(gh[pousr]_[A-Za-z0-9_]{16,}|github_pat_[A-Za-z0-9_]{20,})\b/g, "[redacted token]")

/** The first lines of git's own message, bounded. */
export const gitMessage = (stderr: string, stdout = ""): string => {
  const text = redactTokens((stderr.trim() === "" ? stdout : stderr).trim())
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text
}

/** Why a finished git run failed, as the code a model can act on. */
export const classifyFailure = (
  command: string,
  result: { readonly exitCode: number | null; readonly stderr: string; readonly stdout: string },
  conflicted: ReadonlyArray<string> = []
): ToolError => {
  const message = gitMessage(result.stderr, result.stdout)
  const details = { command, exitCode: result.exitCode, stderr: message }
  if (/not a git repository/i.test(message)) {
    return toolError(
      "NOT_A_REPOSITORY",
      `${command}: cwd is not inside a git repository within the workspace (git: ${message.split("\n")[0]}). Create one with workspace_vcs {"action":"init"} or pass the cwd of a repository.`,
      details
    )
  }
  if (
    /Please tell me who you are|Author identity unknown|Committer identity unknown|unable to auto-detect email address|empty ident name/i.test(
      message
    )
  ) {
    return toolError(
      "VCS_FAILED",
      `${command} failed (exit code ${result.exitCode}): git has no identity for the commit. The user must set one: git config user.email "you@example.com" and git config user.name "Your Name" (in the repository, or --global). git said: ${message}`,
      { ...details, setting: "git config user.email" }
    )
  }
  if (
    /\[rejected\]|\[remote rejected\].*(non-fast-forward|fetch first)|Updates were rejected|stale info/i.test(message)
  ) {
    const lease = /stale info/.test(message)
    return toolError(
      "NON_FAST_FORWARD",
      `${command} was rejected: the remote branch has commits that your local branch does not have${lease ? " (the force-with-lease expectation no longer holds: someone pushed since the remote was last fetched)" : ""}. Fetch the remote, integrate its commits (merge or rebase), then push again without force. git said: ${message}`,
      details
    )
  }
  if (
    conflicted.length > 0 ||
    /CONFLICT|needs merge|unmerged|resolve your current index first|Merge conflict/i.test(message)
  ) {
    return toolError(
      "MERGE_CONFLICT",
      `${command} failed: the repository has unresolved conflicts${conflicted.length > 0 ? ` in ${conflicted.join(", ")}` : ""}. Resolve each conflicted file (edit it, then add it), then retry. git said: ${message}`,
      { ...details, conflicted }
    )
  }
  return toolError("VCS_FAILED", `${command} failed with exit code ${result.exitCode}: ${message}`, details)
}
