/**
 * The Node host's interpretation of the core's sandbox policy (core/services/Sandbox.ts): bubblewrap on
 * Linux, a sandbox-exec profile on macOS (written, not exercised by CI), nothing on Windows. The wrapper is
 * computed here and handed to the supervisor, which runs `<wrapper...> -- <executable> <args...>`.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { SandboxPolicy, SandboxSupport } from "../../core/services/Sandbox.ts"
import { stateDir } from "../../core/gate/stateDir.ts"
import { nodeKeyEnv } from "./NodeKey.ts"
import { BASE_MOUNTS, findOnPath, settledSandboxProbe, startSandboxProbe } from "./sandboxProbe.ts"
import { CAPTURE_DIFF_SOURCE } from "./scripts.generated.ts"

/** The private HOME inside the sandbox (on its private /tmp). */
export const SANDBOX_HOME = "/tmp/home"

/** What the supervisor needs to run a job inside the sandbox. */
export interface SandboxWrapper {
  /** The wrapper's argv, up to and including "--"; the job's executable and args follow. */
  readonly argv: ReadonlyArray<string>
  /** Mount points the wrapper had to create in the real tree (a missing .git): removed after the job when still empty. */
  readonly cleanup: ReadonlyArray<string>
  /** bubblewrap reports a child killed by signal N as exit code 128+N. */
  readonly signalExitCodes: boolean
  /** The wrapper writes "leftover" to fd 3 when the command left processes behind (they end with the namespace). */
  readonly reportsLeftovers: boolean
  /** Capture: the temporary overlay folders (upper, work, merged), removed by the supervisor after the job. */
  readonly captureTemp?: string
}

/**
 * Capture's outer wrapper, run as `unshare -Urm sh -c CAPTURE_SCRIPT sh <lower> <upper> <work> <merged> <node>
 * <differ's source> <outDir> <bwrap argv...> <command...>`: in a new user and mount namespace it mounts an
 * overlay of the root (the real tree is the read-only lower layer), runs bubblewrap with the merged view bound at the
 * root's path, then runs the differ and exits with the command's status. bubblewrap 0.8 has no overlay options.
 * Before the command it writes `<outDir>/started`, whose ctime the differ compares with the real files'.
 * The differ is captureDiff.mjs carried inline (scripts.generated.ts) and run with `node --eval`, so no
 * build of this host (dist/, the LM Studio bundle) needs a file beside it.
 */
export const CAPTURE_SCRIPT = [
  "trap : TERM INT HUP",
  'mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3" "$4" || { { echo "spawn-error EOVERLAY" >&3; } 2>/dev/null; exit 125; }',
  "l=$1; m=$4; u=$2; n=$5; d=$6; o=$7; shift 7",
  // The start mark: a file changed in the real tree after it (its ctime, which no process can set) changed while the command ran.
  'mkdir -p "$o" && : > "$o/started"',
  '"$@"; code=$?',
  '"$n" --input-type=module --eval "$d" agentic-workspace-capture "$l" "$m" "$u" "$o" 3>&-',
  "exit $code"
].join("\n")

/**
 * The first process inside the namespace: runs the command, then counts what else is still alive in the
 * namespace (everything but bwrap's init, pid 1, and itself) and reports it on fd 3 before exiting with the
 * command's status. When it exits, the namespace ends and the kernel kills whatever was left behind, setsid
 * daemons included. POSIX sh, so it adds no start-up time worth measuring.
 */
export const LEFTOVER_SCRIPT = [
  // What spawn would have refused outside the sandbox is reported as the same spawn error, not as an exit code.
  'if [ ! -e "$1" ]; then { echo "spawn-error ENOENT" >&3; } 2>/dev/null; exit 127; fi',
  'if [ -d "$1" ] || [ ! -x "$1" ]; then { echo "spawn-error EACCES" >&3; } 2>/dev/null; exit 126; fi',
  '"$@"; code=$?; n=0',
  "for p in /proc/[0-9]*; do case ${p#/proc/} in 1|$$) ;; *) n=$((n+1));; esac; done",
  "if [ $n -gt 0 ]; then { echo leftover >&3; } 2>/dev/null; fi",
  "exit $code"
].join("; ")

const inside = (parent: string, child: string) =>
  child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`)

const exists = (target: string) => {
  try {
    fs.lstatSync(target)
    return true
  } catch {
    return false
  }
}

/**
 * The bubblewrap arguments for a policy, in mount order: the whole filesystem read-only, a fresh /dev and
 * /proc, a private /tmp (with the private HOME in it), the root writable (bound after /tmp, so a root under
 * /tmp is visible), then .git, .agentic and each protected match read-only (a missing one covered by an empty
 * read-only mount), then the hidden folders as empty read-only mounts; new PID, IPC and UTS namespaces, and a
 * new network namespace unless the policy shares the network.
 */
export const bwrapArgs = (
  bwrap: string,
  policy: SandboxPolicy,
  cwd: string,
  rootSource = policy.root
): SandboxWrapper => {
  const argv: Array<string> = [bwrap, ...BASE_MOUNTS, "--dir", SANDBOX_HOME]
  argv.push("--bind", rootSource, policy.root)
  const cleanup: Array<string> = []
  for (const entry of policy.readOnly) {
    if (entry.missing || !exists(entry.path)) {
      // An empty read-only directory: a command cannot create .git/ (hooks) or .agentic/ under it. Its mount
      // point lands in the real tree (or, under capture, in the overlay) and is removed after the job.
      argv.push("--tmpfs", entry.path, "--remount-ro", entry.path)
      if (rootSource === policy.root) cleanup.push(entry.path)
      continue
    }
    let target = entry.path
    if (fs.lstatSync(entry.path).isSymbolicLink()) {
      // A link inside the root: what it points at is what must be read-only (outside the root it already is).
      target = fs.realpathSync(entry.path)
      if (!inside(policy.root, target)) continue
    }
    argv.push("--ro-bind", target, target)
  }
  for (const hidden of policy.hidden) {
    // Under the private /tmp (and outside the root) a folder is already out of sight.
    const underTmp = inside("/tmp", hidden) && !inside(policy.root, hidden)
    if (!underTmp && exists(hidden)) argv.push("--tmpfs", hidden, "--remount-ro", hidden)
  }
  if (!policy.network) argv.push("--unshare-net")
  argv.push("--unshare-pid", "--unshare-ipc", "--unshare-uts")
  argv.push(
    "--setenv",
    "HOME",
    SANDBOX_HOME,
    "--unsetenv",
    "XDG_STATE_HOME",
    "--unsetenv",
    "TMPDIR",
    "--chdir",
    cwd,
    "--"
  )
  argv.push(fs.existsSync("/bin/sh") ? "/bin/sh" : "/usr/bin/sh", "-c", LEFTOVER_SCRIPT, "sh")
  return { argv, cleanup, signalExitCodes: true, reportsLeftovers: true }
}

const quote = (text: string) => `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`

/**
 * The macOS sandbox-exec (SBPL) profile equivalent to the bubblewrap mounts: writes only under the root and
 * the temporary folders, never under .git, .agentic or a protected match, the hidden folders unreadable, the
 * network denied unless shared. Later rules win in SBPL. Written and documented; CI (Linux) does not run it.
 */
export const sandboxExecProfile = (policy: SandboxPolicy, tmp: string): string => {
  const lines = ["(version 1)", "(allow default)", "(deny file-write*)"]
  lines.push(
    `(allow file-write* (subpath ${quote(policy.root)}) (subpath "/private/tmp") (subpath "/private/var/folders") (subpath ${quote(tmp)}) (literal "/dev/null"))`
  )
  for (const entry of policy.readOnly)
    lines.push(`(deny file-write* (subpath ${quote(entry.path)}) (literal ${quote(entry.path)}))`)
  for (const hidden of policy.hidden) lines.push(`(deny file-read* file-write* (subpath ${quote(hidden)}))`)
  if (!policy.network) lines.push("(deny network*)", "(allow network* (remote unix-socket))")
  return `${lines.join("\n")}\n`
}

/** The host's hidden folder follows the environment in force (the state folder of the keys and the code cache, core/gate/stateDir.ts). */
const hidden = () => [stateDir(nodeKeyEnv())]

/**
 * What this host can do: the probe's answer (adapters/node/sandboxProbe.ts; started here when nothing started
 * it before), with the hidden folder as the environment has it now. A probe that failed to run is run again.
 */
export const sandboxSupport = async (): Promise<SandboxSupport> => ({
  ...(await startSandboxProbe().catch(() => startSandboxProbe())),
  hidden: hidden()
})

/**
 * What sandboxSupport resolves to, answered at once when the probe has settled (the hidden folder read from the
 * environment now, as there); undefined while it has not. capabilities asks on every call: this spares the fiber
 * a trip through a promise.
 */
export const sandboxSupportNow = (): SandboxSupport | undefined => {
  const probed = settledSandboxProbe()
  return probed === undefined ? undefined : { ...probed, hidden: hidden() }
}

/** The path of bwrap (the probe must have found it). */
export const bwrapPath = (): string => findOnPath("bwrap") ?? "bwrap"

/** The wrapper for a job's policy on a host that can do `support`; undefined when it cannot sandbox (the launch then fails the job). */
export const wrapperFor = (
  support: SandboxSupport,
  policy: SandboxPolicy,
  cwd: string,
  jobDir: string
): SandboxWrapper | undefined => {
  if (!support.available) return undefined
  if (support.mechanism === "bwrap") {
    if (policy.capture !== true) return bwrapArgs(bwrapPath(), policy, cwd)
    if (!support.capture) return undefined
    const temp = fs.mkdtempSync(path.join(os.tmpdir(), "aw-capture-"))
    const [upper, work, merged] = ["upper", "work", "merged"].map((name) => path.join(temp, name)) as [
      string,
      string,
      string
    ]
    for (const dir of [upper, work, merged]) fs.mkdirSync(dir)
    const inner = bwrapArgs(bwrapPath(), policy, cwd, merged)
    const outDir = path.join(jobDir, "capture")
    return {
      ...inner,
      argv: [
        findOnPath("unshare") ?? "unshare",
        "-Urm",
        "/bin/sh",
        "-c",
        CAPTURE_SCRIPT,
        "sh",
        policy.root,
        upper,
        work,
        merged,
        process.execPath,
        CAPTURE_DIFF_SOURCE,
        outDir,
        ...inner.argv
      ],
      captureTemp: temp
    }
  }
  const tmp = path.join(jobDir, "tmp")
  fs.mkdirSync(tmp, { recursive: true })
  return {
    argv: [
      "/usr/bin/sandbox-exec",
      "-p",
      sandboxExecProfile(policy, tmp),
      "/usr/bin/env",
      `HOME=${tmp}`,
      `TMPDIR=${tmp}`
    ],
    cleanup: [],
    signalExitCodes: false,
    reportsLeftovers: false
  }
}
