/**
 * The pure half of workspace_vcs: input checks that need no git (option injection, `..`, spaces, sizes),
 * and the planners that turn an input and its before-state into the plan an approval binds, with its
 * title, destructive reasons and alternatives, and resume call; `planOf`, the plan step every gated action
 * shares, turns a loaded before-state (load.ts) into the planned call the gate prompts for.
 */
import * as Either from "effect/Either"
import type { Gh, Git } from "../../exec/git.ts"
import type { DestructiveReason, ResumeCall } from "../../gate/records.ts"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { defined } from "../../text/defined.ts"
import type { PlanStep } from "../Tool.ts"
import type { VcsPlan } from "./schema.ts"

/** The tool's wire name. */
export const TOOL = "workspace_vcs"

/**
 * The text rules of a ref, branch or remote given by the model, checked before git sees it: never an
 * option (a leading "-"), no whitespace or control characters, no "..", no refspec or reflog syntax.
 */
export const checkRefText = (
  field: string,
  value: string,
  kind: "revision" | "branch" | "remote"
): ToolError | undefined => {
  const bad = (why: string) =>
    toolError(
      "INVALID_INPUT",
      `field "${field}" ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)} ${why}.`,
      { field }
    )
  if (value.length === 0) return bad("must not be empty")
  if (value.startsWith("-"))
    return bad(`starts with "-", which git would read as an option; a ${kind} name never starts with "-"`)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\s\u0000-\u001f\u007f]/.test(value)) return bad("contains spaces or control characters; git names have none")
  if (value.includes(".."))
    return bad('contains "..", which is range syntax, not a name; give one branch, tag or commit')
  if (/[:?*[\\]|@\{/.test(value))
    return bad("contains one of : ? * [ \\ @{, which git reads as refspec or revision syntax; give a plain name")
  if (kind === "remote")
    return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value)
      ? undefined
      : bad("is not a remote name (letters, digits, '.', '_' and '-')")
  if (kind === "branch" && /[~^]/.test(value)) return bad('contains "~" or "^"; a branch name has neither')
  if (kind === "revision" && !/^[^~^]+(?:[~^]\d*)*$/.test(value))
    return bad("is not a name followed by ~N or ^N suffixes")
  return undefined
}

/** A revision's name part and its ~N/^N suffix. */
export const splitRevision = (value: string): { readonly name: string; readonly suffix: string } => {
  const at = value.search(/[~^]/)
  return at < 0 ? { name: value, suffix: "" } : { name: value.slice(0, at), suffix: value.slice(at) }
}

/** INVALID_INPUT for a commit message git cannot take as given. */
export const checkMessage = (message: string): ToolError | undefined => {
  if (message.trim() === "")
    return toolError("INVALID_INPUT", 'field "message" must not be empty: say what the commit changes.', {
      field: "message"
    })
  if (message.includes("\0"))
    return toolError("INVALID_INPUT", 'field "message" contains a NUL byte, which git cannot store; remove it.', {
      field: "message"
    })
  return undefined
}

/** What the gate needs of a planned action, besides the plan itself. */
export interface Planned {
  readonly plan: VcsPlan
  readonly title: string
  readonly destructive?: { readonly command: string; readonly reasons: ReadonlyArray<DestructiveReason> }
  readonly resume: ResumeCall
}

/** The resume call: the original call with its arguments exactly as given. */
export const resumeOf = (input: Record<string, unknown>): ResumeCall => ({ tool: TOOL, arguments: input })

/** The destructive reason and the non-destructive alternative of each destructive action. */
export const ALTERNATIVES = {
  checkout:
    "workspace_vcs branch with create: true (creates a branch without switching to it), so no working-tree file is overwritten",
  forcePush: "a push without force after integrating the remote (fetch, then merge or rebase onto it)",
  branchDelete: "keep the branch (a merged branch costs nothing) or ask the user to delete it",
  amend: "a new commit (commit without amend: true)"
} as const

const short = (sha: string | null) => (sha === null ? "(none)" : sha.slice(0, 7))
const subject = (message: string) => {
  const line = message.split("\n")[0]!.trim()
  return line.length > 60 ? `${line.slice(0, 59)}…` : line
}
const where = (cwd: string) => (cwd === "" ? "" : ` in ${cwd}`)

/** init: a repository in cwd, optionally with its initial branch. */
export const planInit = (input: Record<string, unknown>, cwd: string, branch: string | null): Planned => ({
  plan: { _tag: "Init", cwd, branch, argv: ["init", ...(branch === null ? [] : [`--initial-branch=${branch}`])] },
  title: `git init${branch === null ? "" : ` (branch ${branch})`}${where(cwd)}`,
  resume: resumeOf(input)
})

/** add: the paths (repository-relative, literal) and the status they are staged from. */
export const planAdd = (
  input: Record<string, unknown>,
  cwd: string,
  top: string,
  paths: ReadonlyArray<string>,
  excludes: ReadonlyArray<string>,
  statusSha256: string
): Planned => ({
  plan: {
    _tag: "Add",
    cwd,
    top,
    paths: [...paths],
    statusSha256,
    argv: ["add", "--", ...paths.map((path) => (path === "" ? ":(top)" : `:(literal,top)${path}`)), ...excludes]
  },
  title: `git add ${paths.length === 1 ? (paths[0] === "" ? "." : paths[0]) : `${paths.length} paths`}${where(cwd)}`,
  resume: resumeOf(input)
})

/** commit: the message and the index tree it records, on the branch and HEAD it was planned against. */
export const planCommit = (
  input: Record<string, unknown>,
  state: {
    readonly cwd: string
    readonly top: string
    readonly message: string
    readonly amend: boolean
    readonly tree: string
    readonly head: string | null
    readonly branch: string | null
  }
): Planned => ({
  plan: {
    _tag: "Commit",
    ...state,
    argv: ["commit", "--quiet", "--no-edit", ...(state.amend ? ["--amend"] : []), "--file=-"]
  },
  title: `git commit${state.amend ? " --amend" : ""} on ${state.branch ?? `detached ${short(state.head)}`}: "${subject(state.message)}" (tree ${short(state.tree)})`,
  ...(state.amend
    ? {
        destructive: {
          command: "git commit --amend",
          reasons: [{ operation: `amend replaces commit ${short(state.head)}`, alternative: ALTERNATIVES.amend }]
        }
      }
    : {}),
  resume: resumeOf(input)
})

/** checkout: the target and the working-tree status it was planned against. */
export const planCheckout = (
  input: Record<string, unknown>,
  state: {
    readonly cwd: string
    readonly top: string
    readonly ref: string
    readonly target: string
    readonly head: string | null
    readonly statusSha256: string
  }
): Planned => ({
  plan: { _tag: "Checkout", ...state, argv: ["checkout", "--quiet", state.ref, "--"] },
  title: `git checkout ${state.ref} (${short(state.target)})${where(state.cwd)}`,
  destructive: {
    command: `git checkout ${state.ref}`,
    reasons: [
      { operation: "checkout rewrites working-tree files to another commit", alternative: ALTERNATIVES.checkout }
    ]
  },
  resume: resumeOf(input)
})

/** branch create: a new branch at a start commit; it does not switch to it. */
export const planBranchCreate = (
  input: Record<string, unknown>,
  state: {
    readonly cwd: string
    readonly top: string
    readonly name: string
    readonly startPoint: string
    readonly start: string
  }
): Planned => ({
  plan: { _tag: "BranchCreate", ...state, argv: ["branch", "--no-track", state.name, state.start] },
  title: `git branch ${state.name} at ${state.startPoint} (${short(state.start)})${where(state.cwd)}`,
  resume: resumeOf(input)
})

/** branch delete: the branch and the tip it had. */
export const planBranchDelete = (
  input: Record<string, unknown>,
  state: {
    readonly cwd: string
    readonly top: string
    readonly name: string
    readonly force: boolean
    readonly tip: string
  }
): Planned => ({
  plan: { _tag: "BranchDelete", ...state, argv: ["branch", state.force ? "-D" : "-d", state.name] },
  title: `git branch ${state.force ? "-D" : "-d"} ${state.name} (at ${short(state.tip)})${where(state.cwd)}`,
  destructive: {
    command: `git branch --delete${state.force ? " --force" : ""} ${state.name}`,
    reasons: [{ operation: `branch delete removes ${state.name}`, alternative: ALTERNATIVES.branchDelete }]
  },
  resume: resumeOf(input)
})

/** push: exactly the local commit to remote/branch; with force, a lease on the remote-tracking value. */
export const planPush = (
  input: Record<string, unknown>,
  state: {
    readonly cwd: string
    readonly top: string
    readonly remote: string
    readonly remoteUrl: string
    readonly branch: string
    readonly localCommit: string
    readonly remoteCommit: string | null
    readonly force: boolean
    readonly setUpstream: boolean
  },
  options: ReadonlyArray<string> = []
): Planned => ({
  plan: {
    _tag: "Push",
    ...state,
    argv: [
      "push",
      "--porcelain",
      ...options,
      ...(state.force ? [`--force-with-lease=refs/heads/${state.branch}:${state.remoteCommit ?? ""}`] : []),
      "--",
      state.remote,
      `${state.localCommit}:refs/heads/${state.branch}`
    ]
  },
  title: `git push${state.force ? " --force-with-lease" : ""} ${state.remote} ${state.branch} (${short(state.localCommit)})`,
  ...(state.force
    ? {
        destructive: {
          command: `git push --force-with-lease ${state.remote} ${state.branch}`,
          reasons: [
            {
              operation: `force push can discard commits of ${state.remote}/${state.branch}`,
              alternative: ALTERNATIVES.forcePush
            }
          ]
        }
      }
    : {}),
  resume: resumeOf(input)
})

/** issue_create: title and body, bound to the repository's remotes (which decide where gh creates it). */
export const planIssueCreate = (
  input: Record<string, unknown>,
  state: { readonly cwd: string; readonly remotes: string; readonly title: string; readonly body: string }
): Planned => ({
  plan: { _tag: "IssueCreate", ...state, argv: ["issue", "create", `--title=${state.title}`, "--body-file=-"] },
  title: `gh issue create "${subject(state.title)}"`,
  resume: resumeOf(input)
})

/** pr_create: title, body, base and head (and head's local commit), bound to the remotes. */
export const planPrCreate = (
  input: Record<string, unknown>,
  state: {
    readonly cwd: string
    readonly remotes: string
    readonly title: string
    readonly body: string
    readonly base: string | null
    readonly head: string
    readonly headCommit: string | null
    readonly draft: boolean
  }
): Planned => ({
  plan: {
    _tag: "PrCreate",
    ...state,
    argv: [
      "pr",
      "create",
      `--title=${state.title}`,
      "--body-file=-",
      `--head=${state.head}`,
      ...(state.base === null ? [] : [`--base=${state.base}`]),
      ...(state.draft ? ["--draft"] : [])
    ]
  },
  title: `gh pr create ${state.head}${state.base === null ? "" : ` -> ${state.base}`}: "${subject(state.title)}"${state.draft ? " (draft)" : ""}`,
  resume: resumeOf(input)
})

/** The plan as a staged envelope shows it: long texts (a message, a body) clipped; the hash binds them whole. */
const shownPlan = (plan: Planned["plan"]): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(plan).map(([key, value]) => [
      key,
      typeof value === "string" && value.length > 2000
        ? `${value.slice(0, 2000)}… (${value.length} characters)`
        : Array.isArray(value)
          ? value.map((item) =>
              typeof item === "string" && item.length > 2000
                ? `${item.slice(0, 2000)}… (${item.length} characters)`
                : item
            )
          : value
    ])
  )

/** What the interpreter works with (never hashed): the opened git and gh of the call. */
export interface Work {
  readonly git: Git
  readonly gh?: Gh | undefined
}

/** The before-state of a gated call: the opened tools and what the pure planner needs (or a no-op result). */
export type Call =
  | { readonly _tag: "Init"; readonly cwd: string; readonly branch: string | null }
  | {
      readonly _tag: "Add"
      readonly cwd: string
      readonly top: string
      readonly paths: ReadonlyArray<string>
      readonly excludes: ReadonlyArray<string>
      readonly statusSha256: string
    }
  | { readonly _tag: "Commit"; readonly state: Parameters<typeof planCommit>[1] }
  | { readonly _tag: "Checkout"; readonly state: Parameters<typeof planCheckout>[1] }
  | { readonly _tag: "BranchCreate"; readonly state: Parameters<typeof planBranchCreate>[1] }
  | { readonly _tag: "BranchDelete"; readonly state: Parameters<typeof planBranchDelete>[1] }
  | { readonly _tag: "Push"; readonly state: Parameters<typeof planPush>[1]; readonly options: ReadonlyArray<string> }
  | { readonly _tag: "IssueCreate"; readonly state: Parameters<typeof planIssueCreate>[1] }
  | { readonly _tag: "PrCreate"; readonly state: Parameters<typeof planPrCreate>[1] }
  | { readonly _tag: "NoOp"; readonly result: ToolResult }

export interface Before extends Work {
  readonly call: Call
}

export const before = (git: Git, call: Call, gh?: Gh): Before => ({ git, gh, call })

/** The refs a plan reads or moves, for the user's prompt. */
const refsOf = (plan: VcsPlan): ReadonlyArray<string> => {
  switch (plan._tag) {
    case "Init":
      return plan.branch === null ? [] : [`refs/heads/${plan.branch}`]
    case "Add":
      return ["index"]
    case "Commit":
      return [
        `${plan.branch === null ? "HEAD" : `refs/heads/${plan.branch}`} ${plan.head ?? "(no commit)"} -> new commit of tree ${plan.tree}`
      ]
    case "Checkout":
      return [`HEAD ${plan.head ?? "(no commit)"} -> ${plan.ref} ${plan.target}`]
    case "BranchCreate":
      return [`refs/heads/${plan.name} -> ${plan.start}`]
    case "BranchDelete":
      return [`refs/heads/${plan.name} ${plan.tip} -> (deleted)`]
    case "Push":
      return [`${plan.remote} refs/heads/${plan.branch} ${plan.remoteCommit ?? "(new)"} -> ${plan.localCommit}`]
    case "IssueCreate":
      return []
    case "PrCreate":
      return [
        `${plan.head}${plan.headCommit === null ? "" : ` ${plan.headCommit}`}${plan.base === null ? "" : ` -> ${plan.base}`}`
      ]
  }
}

/** The pure half of every gated action: the before-state -> the planned call (or the no-op). */
export const planOf = (
  input: Record<string, unknown>,
  loaded: Before
): Either.Either<PlanStep<VcsPlan, Work>, ToolError> => {
  const call = loaded.call
  if (call._tag === "NoOp") return Either.right({ _tag: "NoOp", result: call.result })
  const planned: Planned =
    call._tag === "Init"
      ? planInit(input, call.cwd, call.branch)
      : call._tag === "Add"
        ? planAdd(input, call.cwd, call.top, call.paths, call.excludes, call.statusSha256)
        : call._tag === "Commit"
          ? planCommit(input, call.state)
          : call._tag === "Checkout"
            ? planCheckout(input, call.state)
            : call._tag === "BranchCreate"
              ? planBranchCreate(input, call.state)
              : call._tag === "BranchDelete"
                ? planBranchDelete(input, call.state)
                : call._tag === "Push"
                  ? planPush(input, call.state, call.options)
                  : call._tag === "IssueCreate"
                    ? planIssueCreate(input, call.state)
                    : planPrCreate(input, call.state)
  const github = planned.plan._tag === "IssueCreate" || planned.plan._tag === "PrCreate"
  const argv = [...(github ? ["gh"] : loaded.git.prefix), ...planned.plan.argv]
  return Either.right({
    _tag: "Planned",
    plan: planned.plan,
    work: { git: loaded.git, gh: loaded.gh },
    title: planned.title,
    prompt: { _tag: "vcs", argv, cwd: planned.plan.cwd, refs: refsOf(planned.plan) },
    ...defined({ destructive: planned.destructive }),
    resume: planned.resume,
    preview: {
      data: {
        argv: [...(github ? ["gh"] : loaded.git.prefix), ...(shownPlan(planned.plan)["argv"] as ReadonlyArray<string>)],
        cwd: planned.plan.cwd,
        plan: shownPlan(planned.plan)
      }
    }
  })
}
