/**
 * The git facts the Workspaces tools bind to: what the host supports, the usable capabilities, and the
 * context (root, identity, branch, HEAD, the tree of the index plus every unignored working file). All
 * git runs through the shared runner (core/exec/git.ts), hardened the same way.
 */
import * as Effect from "effect/Effect"
import { stableStringify } from "../../gate/hash.ts"
import { WorkspaceKey } from "../../gate/key.ts"
import { toolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { HostInfo, HostReads } from "../../services/HostFs.ts"
import { type GitReadArgs, VcsReads } from "../../services/VcsReads.ts"
import { authenticatedGh, githubRepoOf } from "./github.ts"
import { onceWhileAdvertising } from "../advertising.ts"
import { findRepository, type Git, LARGE_OUTPUT_BYTES, openGit } from "../../exec/git.ts"
import { type IndexCopy, withIndexCopy } from "../../exec/indexCopy.ts"
import {
  actionCapability,
  COMMANDS_CAPABILITY,
  HANDOFF_CAPABILITY,
  PR_READS_CAPABILITY,
  REMOTE_READS_CAPABILITY,
  type WorkspaceActionName
} from "./names.ts"

/** The actions this build carries out on a git working copy (PR actions need gh support, not built yet). */
export const LOCAL_ACTIONS: ReadonlyArray<WorkspaceActionName> = [
  "commit",
  "branch_create",
  "branch_switch",
  "branch_delete",
  "move",
  "stash_restore",
  "stash_discard"
]
export const REMOTE_ACTIONS: ReadonlyArray<WorkspaceActionName> = ["push", "pull"]
/** The actions GitHub carries out, through gh (a remote naming a GitHub repository, gh authenticated for its host). */
export const GH_ACTIONS: ReadonlyArray<WorkspaceActionName> = ["pr_create", "pr_merge"]

/** What the host supports, pure: git present at the root, a remote configured, gh authenticated. */
export interface HostSupport {
  readonly git: boolean
  readonly remote: boolean
  readonly gh: boolean
}

/**
 * The capabilities a host with `support` offers: git gives the commands, handoff and the local actions; a
 * remote adds remote reads, push and pull; gh authenticated for the remote's GitHub host adds PR reads,
 * pr_create and pr_merge (and the pull_requests view of the remote reads).
 */
export const supportedCapabilities = (support: HostSupport): ReadonlyArray<string> => {
  if (!support.git) return []
  const out: Array<string> = [COMMANDS_CAPABILITY, HANDOFF_CAPABILITY, ...LOCAL_ACTIONS.map(actionCapability)]
  if (support.remote) out.push(REMOTE_READS_CAPABILITY, ...REMOTE_ACTIONS.map(actionCapability))
  if (support.remote && support.gh) out.push(PR_READS_CAPABILITY, ...GH_ACTIONS.map(actionCapability))
  return out
}

/** The usable capabilities: the user's allowed list intersected with the host's, in the host's order. */
export const intersect = (allowed: ReadonlyArray<string>, supported: ReadonlyArray<string>): ReadonlyArray<string> =>
  supported.filter((capability) => allowed.includes(capability))

/** The capabilities one action needs (branch transitions also need the handoff capability). */
export const actionNeeds = (action: WorkspaceActionName): ReadonlyArray<string> => {
  const own = [COMMANDS_CAPABILITY, actionCapability(action)]
  return action === "branch_switch" ? [...own, HANDOFF_CAPABILITY] : own
}

/** Whether an action is usable under `usable`. */
export const actionUsable = (action: WorkspaceActionName, usable: ReadonlyArray<string>): boolean =>
  actionNeeds(action).every((c) => usable.includes(c))

/**
 * Whether the root is surely not the top of a git working copy, known without running git: git's discovery
 * stops at the root (GIT_CEILING_DIRECTORIES is its parent, core/exec/gitConfig.ts gitEnv), so from the root
 * it can find only a `.git` there or the root itself as a repository (a HEAD there), unless the environment
 * names one (GIT_DIR, GIT_WORK_TREE). Anything at either name, a look that fails or a host that cannot tell
 * the environment is "not sure": git runs. Two lstats instead of two git processes at every start and
 * capabilities call in a folder that is not a repository.
 */
const surelyNoRepositoryAtRoot = Effect.gen(function* () {
  if ((yield* VcsReads).inheritsGitRepository?.() !== false) return false
  const host = yield* HostReads
  const root = (yield* HostInfo).root
  for (const name of [".git", "HEAD"]) {
    const found = yield* Effect.either(host.lstat(`${root === "/" ? "" : root}/${name}`))
    if (found._tag === "Left" || found.right !== undefined) return false
  }
  return true
})

/** The git of the workspace root, or undefined when the root is not the top of a git working copy. */
export const rootGit = Effect.gen(function* () {
  if (yield* surelyNoRepositoryAtRoot) return undefined
  const git = yield* openGit(undefined)
  const repo = yield* findRepository(git)
  return repo.top === "" ? git : undefined
}).pipe(Effect.catchAll(() => Effect.succeed(undefined)))

/** Opens the root's git or fails CAPABILITY_MISSING naming workspace:commands:v1. */
export const requireGit = Effect.flatMap(rootGit, (git) =>
  git === undefined
    ? Effect.fail(
        toolError(
          "CAPABILITY_MISSING",
          `${COMMANDS_CAPABILITY} is not usable here: the workspace root is not the top of a git working copy (or git is not on PATH or not allowed). Open the workspace at a repository's top.`,
          { capability: COMMANDS_CAPABILITY }
        )
      )
    : Effect.succeed(git)
)

/** The remotes' names. */
export const remotes = (git: Git) =>
  Effect.map(git.exec(["remote"]), (result) =>
    result.exitCode === 0 ? result.stdout.split("\n").filter((name) => name !== "") : []
  )

/** What this host supports, read now. */
export const hostSupport = Effect.gen(function* () {
  const git = yield* rootGit
  if (git === undefined) return { git: false, remote: false, gh: false } satisfies HostSupport
  const names = yield* remotes(git).pipe(Effect.catchAll(() => Effect.succeed([] as Array<string>)))
  if (names.length === 0) return { git: true, remote: false, gh: false } satisfies HostSupport
  return { git: true, remote: true, gh: (yield* githubOf(git)) !== undefined } satisfies HostSupport
})

/** The GitHub repository of the working copy and an authenticated gh for its host, or undefined. */
export const githubOf = (git: Git) =>
  Effect.gen(function* () {
    const names = yield* remotes(git).pipe(Effect.catchAll(() => Effect.succeed([] as Array<string>)))
    const repo = yield* githubRepoOf(git, names).pipe(Effect.catchAll(() => Effect.succeed(undefined)))
    if (repo === undefined) return undefined
    const gh = yield* authenticatedGh(git, repo)
    return gh === undefined ? undefined : { gh, repo }
  })

/** The usable capabilities now: the workspaceCapabilities setting intersected with the host's support. */
export const usableNow = Effect.map(
  Effect.suspend(() => hostNow),
  ({ usable }) => usable
)

/** What the host supports and the usable capabilities, read now. */
export const hostNow = Effect.gen(function* () {
  const settings = yield* CurrentSettings
  // The four tools' advertising at start reads it once (core/tools/advertising.ts); a call reads it now.
  const support = yield* onceWhileAdvertising("workspaces:hostSupport", hostSupport)
  return { support, usable: intersect(settings.workspaceCapabilities, supportedCapabilities(support)) }
})

/** A one-line git read; "" when git fails (an unset config key, no upstream, an unborn HEAD). */
export const readLine = (git: Git, args: GitReadArgs) =>
  Effect.map(git.exec(args), (result) => (result.exitCode === 0 ? result.stdout.trim() : ""))

/** The pathspec that keeps the toolkit's own state out of every enumeration and tree. */
export const NOT_AGENTIC = [":(exclude,top).agentic"]

/**
 * The tree of the index plus every unignored working file, `.agentic/` excluded: `git add -A` into a copy
 * of the index (GIT_INDEX_FILE), then `git write-tree`; the real index is never touched.
 */
export const workingTree = (git: Git) =>
  withIndexCopy(git, "workspaces", "missing", (copy) =>
    Effect.gen(function* () {
      if (copy.indexMtimeSec !== undefined) yield* smudgeRacy(copy, copy.indexMtimeSec)
      yield* copy.must(["add", "-A", "--", ".", ...NOT_AGENTIC])
      return (yield* copy.must(["write-tree"])).trim()
    })
  )

/** One index entry as `git ls-files -s --debug -z` prints it: the `--index-info` line and the recorded mtime (seconds). */
export const parseDebugEntries = (
  text: string
): ReadonlyArray<{ readonly info: string; readonly mtimeSec: number }> => {
  const out: Array<{ info: string; mtimeSec: number }> = []
  const entry =
    /(\d{6} [0-9a-f]{40,64} \d)\t([^\0]*)\0 {2}ctime: \d+:\d+\n {2}mtime: (\d+):\d+\n[^\0]*?flags: [0-9a-f]+\n/g
  for (let match = entry.exec(text); match !== null; match = entry.exec(text))
    out.push({ info: `${match[1]}\t${match[2]}`, mtimeSec: Number(match[3]) })
  return out
}

/**
 * The copy of the index carries the real index's stat data but a newer file mtime, and git decides whether
 * an entry is "racily clean" (stat data it must not trust) by comparing the entry's mtime with the index
 * file's mtime. A file saved in the same second as the index was written, with the same size, would look
 * unchanged in the copy and the tree would miss the save (the skipped context-id flake). Every entry racy
 * against the real index's mtime is re-inserted without stat data, so `git add -A` hashes it.
 */
const smudgeRacy = (copy: IndexCopy, indexSec: number) =>
  Effect.gen(function* () {
    const listed = yield* copy.must(["ls-files", "-s", "--debug", "-z"], { maxOutputBytes: LARGE_OUTPUT_BYTES })
    const racy = parseDebugEntries(listed).filter((entry) => entry.mtimeSec >= indexSec)
    if (racy.length === 0) return
    yield* copy.must(["update-index", "-z", "--index-info"], {
      stdin: racy.map((entry) => `${entry.info}\0`).join("")
    })
  })

/** What a context_id is bound to. */
export interface Binding {
  readonly root: string
  readonly identity: string
  readonly branch: string | null
  readonly head: string | null
  readonly tree: string
}

export const readBinding = (git: Git) =>
  Effect.gen(function* () {
    const info = yield* HostInfo
    const [name, email, branch, head, tree] = yield* Effect.all([
      readLine(git, ["config", "--get", "user.name"]),
      readLine(git, ["config", "--get", "user.email"]),
      readLine(git, ["symbolic-ref", "--short", "-q", "HEAD"]),
      readLine(git, ["rev-parse", "-q", "--verify", "HEAD"]),
      workingTree(git)
    ])
    return {
      root: info.root,
      identity: `${name} <${email}>`,
      branch: branch === "" ? null : branch,
      head: head === "" ? null : head,
      tree
    } satisfies Binding
  })

/** The opaque context id of a binding: a UUID (version 8) from the workspace key's MAC of it. */
export const contextIdOf = (binding: Binding) =>
  Effect.gen(function* () {
    const key = yield* WorkspaceKey
    const mac = yield* key.sign(`agentic-workspace/workspaces-context/v1\n${stableStringify(binding)}`)
    const hex = mac.slice(0, 32).split("")
    hex[12] = "8"
    hex[16] = "89ab"[Number.parseInt(hex[16]!, 16) % 4]!
    const h = hex.join("")
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
  })

/** CONTEXT_STALE: the given context_id does not match the working copy now (or was never issued). */
export const contextStale = () =>
  toolError(
    "CONTEXT_STALE",
    "context_id does not match the working copy now (a file was saved, HEAD, the branch or the git identity changed), or it was never issued; call get_workspace_status again and use its context_id.",
    { field: "context_id" }
  )

/** The binding now, refusing a context_id that is not the one it yields. */
export const checkContext = (git: Git, contextId: string) =>
  Effect.gen(function* () {
    const binding = yield* readBinding(git)
    const current = yield* contextIdOf(binding)
    if (current !== contextId.toLowerCase()) return yield* Effect.fail(contextStale())
    return binding
  })
