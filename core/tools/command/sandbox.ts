/**
 * The sandbox plan of one command: which paths of the workspace are bound read-only over the writable root
 * (.git, .agentic, and every existing match of protectedPatterns), from a walk of the tree through the
 * Workspace service. A pure policy comes out (core/services/Sandbox.ts); the host interprets it.
 */
import * as Effect from "effect/Effect"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { type ReadOnlyPath, sandboxPolicy, type SandboxPolicy, type SandboxSupport } from "../../services/Sandbox.ts"
import { isProtectedPath, Workspace } from "../../services/Workspace.ts"

const CHILD_PROBE = "\u0000agentic-workspace-probe"

/** At most this many directory entries are looked at to find the protected matches. */
export const PROTECTED_WALK_LIMIT = 200_000
/** At most this many protected matches are bound (each is one mount). */
export const PROTECTED_MOUNT_LIMIT = 2000

/**
 * The existing paths that match a protected glob, outermost first: a matching directory is bound whole
 * (so files created in it later are read-only too) and not descended into. .git and .agentic are not walked.
 */
export const protectedMatches = (
  patterns: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>, ToolError, Workspace> =>
  Effect.gen(function* () {
    if (patterns.length === 0) return []
    const workspace = yield* Workspace
    const matches: Array<string> = []
    const pending: Array<string> = [""]
    let seen = 0
    while (pending.length > 0) {
      const dir = pending.pop()!
      const entries = yield* Effect.orElseSucceed(workspace.list(dir === "" ? "." : dir), () => [])
      for (const entry of entries) {
        const rel = dir === "" ? entry.name : `${dir}/${entry.name}`
        const lower = entry.name.toLowerCase()
        if (dir === "" && (lower === ".git" || lower === ".agentic")) continue
        if (++seen > PROTECTED_WALK_LIMIT) {
          return yield* Effect.fail(
            toolError(
              "SANDBOX_UNAVAILABLE",
              `The workspace has more than ${PROTECTED_WALK_LIMIT} entries, too many to find every match of protectedPatterns for the sandbox.`,
              {
                setting: "protectedPatterns"
              }
            )
          )
        }
        // A folder whose every possible child is protected (secrets/** protects secrets/x) is bound whole, so a
        // file created in it later is read-only too.
        const whole =
          entry.type === "directory" &&
          isProtectedPath(`${rel}/${CHILD_PROBE}`, patterns) &&
          isProtectedPath(`${rel}/${CHILD_PROBE}.x/y`, patterns)
        if (whole || isProtectedPath(rel, patterns)) matches.push(rel)
        else if (entry.type === "directory") pending.push(rel)
      }
    }
    if (matches.length > PROTECTED_MOUNT_LIMIT) {
      return yield* Effect.fail(
        toolError(
          "SANDBOX_UNAVAILABLE",
          `protectedPatterns match ${matches.length} paths; the sandbox binds at most ${PROTECTED_MOUNT_LIMIT}. Protect their folders with a folder glob (dir/**) instead.`,
          {
            setting: "protectedPatterns"
          }
        )
      )
    }
    return matches.sort()
  })

/** The policy for a command in this workspace now. */
export const planSandbox = (
  support: SandboxSupport,
  protectedPatterns: ReadonlyArray<string>,
  network: boolean,
  capture = false
): Effect.Effect<SandboxPolicy, ToolError, Workspace> =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const fixed = yield* Effect.forEach([".git", ".agentic"], (rel) =>
      Effect.map(
        Effect.orElseSucceed(workspace.lstat(rel), () => undefined),
        (info): ReadOnlyPath => ({ path: workspace.abs(rel), missing: info === undefined })
      )
    )
    const matched = yield* protectedMatches(protectedPatterns)
    return sandboxPolicy({
      root: workspace.root,
      readOnly: [...fixed, ...matched.map((rel) => ({ path: workspace.abs(rel), missing: false }))],
      hidden: support.hidden,
      network,
      capture
    })
  })
