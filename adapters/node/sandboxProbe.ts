/**
 * The probe of the Node host's command sandbox (adapters/node/sandbox.ts): can bubblewrap create its
 * namespaces, and can capture mount overlayfs in a user namespace (Linux); is sandbox-exec there (macOS)?
 * Node builtins only, so the command's entry can start it before the rest of the bundle loads.
 *
 * The answer is asked of this host each process, never read from a file: a workspace or a cloned
 * repository could plant one. `startSandboxProbe` runs both probes as child processes in the background
 * (the `call` entry starts it, so they run while the modules load and the workspace opens); every caller
 * awaits that one answer, kept for the process.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import type { SandboxSupport } from "../../core/services/Sandbox.ts"

/** The probe's answer: SandboxSupport without the hidden folders (they follow the environment in force). */
export type ProbedSupport = Omit<SandboxSupport, "hidden">

/** The mounts every bubblewrap run starts with, the jobs' and the probe's: / read-only, a fresh /dev and /proc, a private /tmp. */
export const BASE_MOUNTS = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"] as const

/** An executable on PATH, or undefined. */
export const findOnPath = (name: string): string | undefined => {
  for (const dir of (process.env["PATH"] ?? "").split(path.delimiter)) {
    if (dir === "" || dir === ".") continue
    const candidate = path.join(dir, name)
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      if (fs.statSync(candidate).isFile()) return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

const firstLine = (text: string) => text.trim().split("\n")[0] ?? ""

/** How a probe process ended: its exit status (null when it could not start or was killed) and its stderr. */
interface Ran {
  readonly status: number | null
  readonly stderr: string
}

const PROBE_TIMEOUT_MS = 10_000

/** Runs one probe process to its end (never rejects: a process that cannot start ends with status null). */
const run = (file: string, args: ReadonlyArray<string>): Promise<Ran> =>
  new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ["ignore", "ignore", "pipe"], timeout: PROBE_TIMEOUT_MS })
    let stderr = ""
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk
    })
    child.on("error", () => resolve({ status: null, stderr }))
    child.on("close", (status) => resolve({ status, stderr }))
  })

type Capture = Pick<SandboxSupport, "capture" | "captureReason">

const unavailable = (reason: string): ProbedSupport => ({
  available: false,
  mechanism: "none",
  reason,
  capture: false,
  captureReason: reason
})

/** The bubblewrap probe: namespaces as a job gets them, running /bin/true. */
const bwrapProbe = (bwrap: string): Promise<Ran> =>
  run(bwrap, [
    ...BASE_MOUNTS,
    "--unshare-net",
    "--unshare-pid",
    "--",
    fs.existsSync("/bin/true") ? "/bin/true" : "/usr/bin/true"
  ])

const bwrapVerdict = (result: Ran, capture: Capture): ProbedSupport =>
  result.status === 0
    ? { available: true, mechanism: "bwrap", ...capture }
    : unavailable(
        `bubblewrap could not create its namespaces (${firstLine(result.stderr) || `exit ${result.status}`}); unprivileged user namespaces may be disabled`
      )

const NO_UNSHARE: Capture = { capture: false, captureReason: "unshare (util-linux) is not installed" }
const CAPTURE_DIRS = ["lower", "upper", "work", "merged"] as const

/** The capture probe's command: overlayfs mounted by an unprivileged user in `unshare -Urm`, over folders in `base`. */
const captureArgs = (base: string): ReadonlyArray<string> => [
  "-Urm",
  "/bin/sh",
  "-c",
  `mount -t overlay overlay -o lowerdir=${base}/lower,upperdir=${base}/upper,workdir=${base}/work ${base}/merged && echo ok > ${base}/merged/probe`
]

const captureVerdict = (result: Ran, wrote: boolean): Capture =>
  result.status === 0 && wrote
    ? { capture: true }
    : {
        capture: false,
        captureReason: `overlayfs cannot be mounted in a user namespace here (${firstLine(result.stderr) || `exit ${result.status}`})`
      }

/** The capture probe, in a fresh temp folder made and removed off the main thread. */
const captureProbe = async (): Promise<Capture> => {
  const unshare = findOnPath("unshare")
  if (unshare === undefined) return NO_UNSHARE
  const base = await fsp.mkdtemp(path.join(os.tmpdir(), "aw-capture-probe-"))
  try {
    await Promise.all(CAPTURE_DIRS.map((name) => fsp.mkdir(path.join(base, name))))
    const result = await run(unshare, captureArgs(base))
    const wrote = await fsp.access(path.join(base, "upper/probe")).then(
      () => true,
      () => false
    )
    return captureVerdict(result, wrote)
  } finally {
    await fsp.rm(base, { recursive: true, force: true })
  }
}

/** The answer where no probe process needs to run (not Linux, or no bwrap), else the bwrap to probe. */
const withoutProcesses = (): ProbedSupport | { readonly bwrap: string } => {
  if (process.platform === "linux") {
    const bwrap = findOnPath("bwrap")
    return bwrap === undefined
      ? unavailable("bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)")
      : { bwrap }
  }
  if (process.platform === "darwin")
    return fs.existsSync("/usr/bin/sandbox-exec")
      ? {
          available: true,
          mechanism: "sandbox-exec",
          capture: false,
          captureReason: "capture needs Linux (overlayfs in a user namespace)"
        }
      : unavailable("/usr/bin/sandbox-exec is missing")
  return unavailable(`no command sandbox is implemented for ${process.platform}`)
}

/** Both probes at once, as child processes (capture counts only when bubblewrap works). */
const probe = async (): Promise<ProbedSupport> => {
  const host = withoutProcesses()
  if (!("bwrap" in host)) return host
  const [result, captured] = await Promise.all([
    bwrapProbe(host.bwrap),
    captureProbe().catch(
      (error): Capture => ({
        capture: false,
        captureReason: `the capture probe could not run (${firstLine(String(error))})`
      })
    )
  ])
  return bwrapVerdict(result, captured)
}

let probing: Promise<ProbedSupport> | undefined
/** The answer `probing` resolved to, once it has: the same for every later caller. */
let settled: ProbedSupport | undefined

/** Starts the probe in the background (once per process) and resolves to its answer, the same for every caller. */
export const startSandboxProbe = (): Promise<ProbedSupport> => {
  if (probing === undefined) {
    const started = probe()
    probing = started
    started.then(
      (answer) => {
        if (probing === started) settled = answer
      },
      // A probe that could not run is forgotten, so the next caller probes again.
      () => {
        probing = undefined
      }
    )
  }
  return probing
}

/** The probe's answer when it has settled (what startSandboxProbe resolves to from then on), else undefined. */
export const settledSandboxProbe = (): ProbedSupport | undefined => settled
