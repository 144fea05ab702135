/**
 * The command sandbox as a pure plan: what a command may read, write and reach. The core decides the
 * policy (the workspace root writable except .git/, .agentic/ and the existing matches of protectedPatterns,
 * the approval key's folder hidden, a private /tmp and HOME, the network off unless allowCommandNetwork);
 * a host interprets it (bubblewrap on Linux, sandbox-exec on macOS) through the Processes port, or
 * reports why it cannot. See docs/SECURITY.md.
 *
 * @example
 *   const policy = sandboxPolicy({ root: "/srv/p", readOnly: [{ path: "/srv/p/.git", missing: false }], hidden: [keys], network: false })
 */
import { toolError, type ToolError } from "../protocol/errors.ts"

/** A path inside the root that the sandbox mounts read-only; `missing` ones are covered by an empty read-only mount. */
export interface ReadOnlyPath {
  readonly path: string
  readonly missing: boolean
}

/** What a sandboxed command may do. Paths are absolute host paths. */
export interface SandboxPolicy {
  /** The workspace root, bound writable (after the private /tmp, so a root under /tmp stays visible). */
  readonly root: string
  /** Bound read-only over the writable root, in order: .git, .agentic, then each existing protected match. */
  readonly readOnly: ReadonlyArray<ReadOnlyPath>
  /** Folders replaced by an empty read-only mount: the approval key's folder. */
  readonly hidden: ReadonlyArray<string>
  /** Whether the command shares the host's network (allowCommandNetwork); otherwise a new, empty network namespace. */
  readonly network: boolean
  /** Everything else is read-only; /tmp and HOME are private and writable; a new PID namespace ends every process of the job with it. */
  readonly privateTmp: true
  readonly privateHome: true
  readonly newPidNamespace: true
  /**
   * Capture: the command sees a copy-on-write overlay of the root instead of the root itself, so the real tree
   * is untouched; its changes are written to `<jobDir>/capture/` (manifest.json and files/) when it ends.
   */
  readonly capture?: true
}

/** What the host can do about sandboxing (reported by the Processes port). */
export interface SandboxSupport {
  /** Whether commands can be confined on this host now. */
  readonly available: boolean
  /** "bwrap" (Linux), "sandbox-exec" (macOS), or "none". */
  readonly mechanism: "bwrap" | "sandbox-exec" | "none"
  /** Why it is unavailable (missing bubblewrap, user namespaces refused, an unsupported platform). */
  readonly reason?: string
  /** Folders the sandbox must hide: the workspace key's folder (core/gate/key.ts keysDir). */
  readonly hidden: ReadonlyArray<string>
  /** Whether capture (a copy-on-write overlay of the root) can run here, and why not. */
  readonly capture: boolean
  readonly captureReason?: string
}

/** A host without any sandbox (Deno, memory, an embedder without processes). */
export const NO_SANDBOX: SandboxSupport = {
  available: false,
  mechanism: "none",
  reason: "this host has no command sandbox",
  hidden: [],
  capture: false,
  captureReason: "this host has no command sandbox"
}

/** The policy for one command. `readOnly` lists .git and .agentic first, then the protected matches. */
export const sandboxPolicy = (input: {
  readonly root: string
  readonly readOnly: ReadonlyArray<ReadOnlyPath>
  readonly hidden: ReadonlyArray<string>
  readonly network: boolean
  readonly capture?: boolean
}): SandboxPolicy => ({
  root: input.root,
  readOnly: input.readOnly,
  hidden: input.hidden,
  network: input.network,
  privateTmp: true,
  privateHome: true,
  newPidNamespace: true,
  ...(input.capture === true ? { capture: true as const } : {})
})

/** How a command will run under the commandSandbox setting: confined, unconfined (with the reason), or refused. */
export type SandboxDecision = { readonly _tag: "Sandboxed" } | { readonly _tag: "Unconfined"; readonly reason: string }

/**
 * The rule of `commandSandbox`: "off" never confines; "auto" confines where the host can and otherwise runs
 * unconfined and says why; "required" refuses with SANDBOX_UNAVAILABLE where it cannot.
 */
export const decideSandbox = (
  setting: "auto" | "required" | "off",
  support: SandboxSupport
): SandboxDecision | ToolError => {
  if (setting === "off") return { _tag: "Unconfined", reason: 'commandSandbox is "off"' }
  if (support.available) return { _tag: "Sandboxed" }
  const reason = support.reason ?? "this host cannot confine commands"
  if (setting === "required") {
    return toolError(
      "SANDBOX_UNAVAILABLE",
      `commandSandbox is "required" but commands cannot be sandboxed here: ${reason}. Nothing was run. Ask the user to install bubblewrap (Linux) or to set commandSandbox to "auto" or "off".`,
      { setting: "commandSandbox", reason }
    )
  }
  return { _tag: "Unconfined", reason }
}
