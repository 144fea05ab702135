/**
 * A browser session's processes on Node: finding Chromium (never a download), starting
 * browserSupervisor.ts detached (its own process group) with the session's spec, waiting for the DevTools
 * endpoint it records, and ending every process of the session. The supervisor's files are decoded against
 * their Schemas (core/services/browserFiles.ts).
 */
import { spawn } from "node:child_process"
import * as nodeModule from "node:module"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as Either from "effect/Either"
import type * as Schema from "effect/Schema"
import { toolError } from "../../core/protocol/errors.ts"
import type { BrowserEndpoint } from "../../core/services/Browser.ts"
import {
  BrowserExitSchema,
  type BrowserSpec,
  BrowserStartedSchema,
  SESSION_FILE_REPAIR
} from "../../core/services/browserFiles.ts"
import { decodeJobFile } from "../../core/services/jobFiles.ts"
import { processIdentity } from "./NodeProcesses.ts"
import { BROWSER_SUPERVISOR, SUPERVISOR_FROM_SOURCE } from "./runtimeFiles.ts"

/**
 * The supervisor script, beside this module (adapters/node/runtimeFiles.ts): browserSupervisor.ts through
 * tsx in a checkout, dist/browserSupervisor.js (scripts/build.mjs) under plain node in the package.
 * node:module is imported as a namespace: a bundler banner (lmstudio-js's) may declare `createRequire` at
 * the bundle's top level, and a second top-level binding of that name would not load.
 */
export { BROWSER_SUPERVISOR }

/** How node runs the supervisor: the tsx loader for the .ts source, nothing for the built .js. */
const supervisorArgv = (): Array<string> =>
  SUPERVISOR_FROM_SOURCE
    ? ["--import", pathToFileURL(nodeModule.createRequire(import.meta.url).resolve("tsx/esm")).href, BROWSER_SUPERVISOR]
    : [BROWSER_SUPERVISOR]

/** The executables tried when browserExecutablePath is empty, in order. */
export const DEFAULT_BROWSERS: ReadonlyArray<string> = ["/usr/bin/chromium", "chromium-browser", "google-chrome"]

const isExecutable = (candidate: string) => {
  try {
    fs.accessSync(candidate, fs.constants.X_OK)
    return fs.statSync(candidate).isFile()
  } catch {
    return false
  }
}

/** The browser to drive: the setting when given, else the first default that exists (on PATH for bare names). */
export const findBrowser = (setting: string): string | undefined => {
  const candidates = setting === "" ? DEFAULT_BROWSERS : [setting]
  for (const candidate of candidates) {
    if (candidate.includes("/")) {
      if (isExecutable(candidate)) return candidate
      continue
    }
    for (const dir of (process.env["PATH"] ?? "").split(path.delimiter)) {
      if (dir !== "" && isExecutable(path.join(dir, candidate))) return path.join(dir, candidate)
    }
  }
  return undefined
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A file the supervisor writes in the session folder (atomically), decoded against its Schema
 * (core/services/browserFiles.ts): undefined while it is absent; IO_ERROR naming the file and the repair
 * when it is there but is not JSON or does not decode.
 */
export const readSessionFile = async <A, I>(
  sessionDir: string,
  name: string,
  schema: Schema.Schema<A, I>
): Promise<A | undefined> => {
  const file = path.join(sessionDir, name)
  let text: string
  try {
    text = await fsp.readFile(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw toolError("IO_ERROR", `The browser session file ${file} could not be read (${(error as Error).message}).`, {
      path: file
    })
  }
  const decoded = decodeJobFile(name, schema, text)
  if (Either.isRight(decoded)) return decoded.right
  throw toolError("IO_ERROR", `The browser session's ${decoded.left} (${file}); ${SESSION_FILE_REPAIR}.`, {
    path: file
  })
}

/** Processes (pids) whose command line names the session's user-data dir, or whose group is the supervisor's. */
export const sessionProcesses = (endpoint: Pick<BrowserEndpoint, "supervisorPid" | "userDataDir">): Array<number> => {
  const found: Array<number> = []
  let entries: Array<string> = []
  try {
    entries = fs.readdirSync("/proc")
  } catch {
    return found
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (fields[0] === "Z" || fields[0] === "X") continue
      const inGroup = Number(fields[2]) === endpoint.supervisorPid
      // Chromium's crash handler daemonizes into its own group; it names the profile (--database=<dir>/Crashpad).
      const cmdline = inGroup ? "" : fs.readFileSync(`/proc/${entry}/cmdline`, "utf8")
      if (inGroup || cmdline.includes(endpoint.userDataDir)) found.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

const LAUNCH_WAIT_MS = 60_000

/** The browser to drive, or NOT_FOUND naming what was looked for and the repair (a browser is never downloaded). */
const browserExecutable = (setting: string): string => {
  const executable = findBrowser(setting)
  if (executable !== undefined) return executable
  throw toolError(
    "NOT_FOUND",
    setting === ""
      ? `No Chromium was found (looked for ${DEFAULT_BROWSERS.join(", ")}). Install Chromium (Debian: apt-get install chromium) or set browserExecutablePath; a browser is never downloaded.`
      : `browserExecutablePath "${setting}" is not an executable file. Set it to a Chromium executable, or leave it empty for ${DEFAULT_BROWSERS.join(", ")}.`,
    { setting: "browserExecutablePath" }
  )
}

/** Writes the session's spec.json and starts its supervisor, detached in its own process group; its pid. */
const startSupervisor = async (sessionDir: string, spec: BrowserSpec): Promise<number> => {
  await fsp.mkdir(sessionDir, { recursive: true })
  await fsp.writeFile(path.join(sessionDir, "spec.json"), JSON.stringify(spec))
  if (!fs.existsSync(BROWSER_SUPERVISOR))
    throw toolError(
      "RUNTIME_UNAVAILABLE",
      `The browser supervisor ${BROWSER_SUPERVISOR} is missing beside this build of agentic-workspace; reinstall the package (or run npm run build in a checkout).`,
      { file: BROWSER_SUPERVISOR }
    )
  const out = fs.openSync(path.join(sessionDir, "supervisor.log"), "a")
  const child = spawn(process.execPath, [...supervisorArgv(), sessionDir], {
    detached: true,
    stdio: ["ignore", out, out],
    shell: false
  })
  fs.closeSync(out)
  child.unref()
  const pid = child.pid
  if (pid === undefined) throw toolError("IO_ERROR", "The browser supervisor could not be started.")
  return pid
}

/** Kills the supervisor's process group (the browser and the proxy with it). */
const endGroup = (pid: number) => {
  try {
    process.kill(-pid, "SIGKILL")
  } catch {
    // gone
  }
}

/**
 * Waits for the supervisor's started.json (the DevTools endpoint) or its exit.json, within LAUNCH_WAIT_MS;
 * on a session file that does not decode or the timeout, nothing of the session is left running.
 */
const awaitStarted = async (sessionDir: string, pid: number, spec: BrowserSpec): Promise<BrowserEndpoint> => {
  const identity = processIdentity(pid) ?? `pid:${pid}`
  const deadline = Date.now() + LAUNCH_WAIT_MS
  while (Date.now() < deadline) {
    const files = await Promise.all([
      readSessionFile(sessionDir, "started.json", BrowserStartedSchema),
      readSessionFile(sessionDir, "exit.json", BrowserExitSchema)
    ]).catch((error: unknown) => {
      // A supervisor file that does not decode: the session is not used, and nothing of it is left running.
      endGroup(pid)
      throw error
    })
    const [started, exit] = files
    if (started !== undefined) {
      return {
        cdpUrl: started.cdpUrl,
        proxyPort: started.proxyPort,
        supervisorPid: pid,
        supervisorIdentity: identity,
        browserPid: started.browserPid,
        executablePath: spec.executablePath,
        userDataDir: spec.userDataDir
      }
    }
    if (exit !== undefined || processIdentity(pid) === undefined) {
      throw toolError(
        "IO_ERROR",
        `The browser could not be started: ${exit?.detail ?? "its supervisor exited"}. See ${path.join(sessionDir, "supervisor.log")}.`
      )
    }
    await sleep(25)
  }
  endGroup(pid)
  throw toolError(
    "TIMEOUT",
    `The browser did not start within ${LAUNCH_WAIT_MS / 1000} s; nothing of it is left running.`
  )
}

/** Starts a session: its supervisor with the egress proxy and headless Chromium, in `sessionDir`. */
export const launchSession = async (spec: {
  sessionDir: string
  executablePath: string
  allowPrivateNetwork: boolean
}): Promise<BrowserEndpoint> => {
  const executable = browserExecutable(spec.executablePath)
  const browserSpec: BrowserSpec = {
    executablePath: executable,
    userDataDir: path.join(spec.sessionDir, "profile"),
    allowPrivateNetwork: spec.allowPrivateNetwork
  }
  const pid = await startSupervisor(spec.sessionDir, browserSpec)
  return awaitStarted(spec.sessionDir, pid, browserSpec)
}

/** Ends every process of a session: SIGTERM, then SIGKILL until none is left or the time is up; how many are left. */
export const endSession = async (endpoint: BrowserEndpoint): Promise<{ processesLeft: number }> => {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-endpoint.supervisorPid, name)
    } catch {
      // the group is gone
    }
    for (const pid of sessionProcesses(endpoint)) {
      try {
        process.kill(pid, name)
      } catch {
        // gone
      }
    }
  }
  signal("SIGTERM")
  const deadline = Date.now() + 1500
  while (sessionProcesses(endpoint).length > 0 && Date.now() < deadline) await sleep(25)
  const killDeadline = Date.now() + 5000
  while (sessionProcesses(endpoint).length > 0 && Date.now() < killDeadline) {
    signal("SIGKILL")
    await sleep(50)
  }
  return { processesLeft: sessionProcesses(endpoint).length }
}
