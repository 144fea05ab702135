/**
 * The Node host's language servers (core/services/LanguageServers.ts): typescript-language-server (with
 * typescript's tsserver) and pyright, resolved from the project's node_modules first and then from the
 * toolkit's own install, started on first use, one per language per workspace, spoken to over stdio with
 * vscode-jsonrpc, confined like a command (bubblewrap: the whole filesystem read-only, a private /tmp, no
 * network, a new PID namespace; adapters/node/sandbox.ts), with a heap ceiling and a per-request deadline.
 * A server idle for languageServerIdleMinutes is stopped; the workspace's close stops every one. See
 * docs/CODE.md.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as Effect from "effect/Effect"
import { decideSandbox } from "../../core/services/Sandbox.ts"
import {
  type LanguageId,
  type LanguageServerFailure,
  type LanguageServersShape,
  languageOfPath,
  languageServerFailure,
  type LspDiagnostic,
  type LspLocation,
  type LspRange,
  type LspSymbol,
  type LspWorkspaceEdit,
  type OverlayDocument,
  type ServerInfo
} from "../../core/services/LanguageServers.ts"
import type { Settings } from "../../core/settings/settings.ts"
import { bwrapPath, SANDBOX_HOME, sandboxSupport } from "./sandbox.ts"

/** The exact versions the toolkit is tested with (package.json peerDependencies; docs/CODE.md). */
export const PINNED = {
  "typescript-language-server": "6.0.2",
  typescript: "5.9.3",
  pyright: "1.1.414"
} as const

/** The V8 heap ceiling of every node process of a server (the language server and tsserver), in MiB. */
export const SERVER_HEAP_MB = 3072

/** How many of a server's last stderr lines a failure carries. */
const STDERR_LINES = 40

/** A failure as a rejected promise's reason. */
class Failed extends Error {
  constructor(readonly failure: LanguageServerFailure) {
    super(failure.message)
  }
}
const failure = (reason: LanguageServerFailure["reason"], message: string, stderrTail?: string) =>
  new Failed(languageServerFailure(reason, message, stderrTail))

/** What a language's server is made of on this machine: how to start it and what it is. */
interface Resolved {
  readonly argv: ReadonlyArray<string>
  readonly info: ServerInfo
  /** Folders the server must be able to read inside the sandbox (its packages), beside the root. */
  readonly readable: ReadonlyArray<string>
  readonly initializationOptions: Record<string, unknown>
  readonly languageIdOf: (file: string) => string
}

const toolkitRequire = createRequire(import.meta.url)

/** The folder of an installed package (the project's first, then the toolkit's), or undefined. */
const packageDir = (name: string, root: string): string | undefined => {
  const local = path.join(root, "node_modules", name, "package.json")
  if (fs.existsSync(local)) return path.dirname(fs.realpathSync(local))
  for (const attempt of [`${name}/package.json`, name]) {
    try {
      const found = toolkitRequire.resolve(attempt)
      let dir = path.dirname(found)
      // Walk up from the entry to the folder whose package.json names the package.
      for (let depth = 0; depth < 6; depth++) {
        const manifest = path.join(dir, "package.json")
        if (fs.existsSync(manifest) && readManifest(manifest).name === name) return fs.realpathSync(dir)
        dir = path.dirname(dir)
      }
    } catch {
      // not resolvable this way
    }
  }
  return undefined
}

const readManifest = (file: string): { name?: string; version?: string; bin?: unknown } => {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as { name?: string; version?: string; bin?: unknown }
  } catch {
    return {}
  }
}

/** The script a project's node_modules/.bin entry runs (a link to a JS file), when there is one. */
const projectBin = (root: string, name: string): string | undefined => {
  const bin = path.join(root, "node_modules", ".bin", name)
  try {
    const real = fs.realpathSync(bin)
    return fs.statSync(real).isFile() ? real : undefined
  } catch {
    return undefined
  }
}

/** The package folder above a file (the nearest package.json). */
const packageAbove = (file: string): string => {
  let dir = path.dirname(file)
  for (let depth = 0; depth < 8; depth++) {
    if (fs.existsSync(path.join(dir, "package.json"))) return dir
    dir = path.dirname(dir)
  }
  return path.dirname(file)
}

const repair = (language: LanguageId) =>
  language === "typescript"
    ? `npm install -D typescript-language-server@${PINNED["typescript-language-server"]} typescript@${PINNED.typescript}`
    : `npm install -D pyright@${PINNED.pyright}`

const TS_LANGUAGE_IDS: Record<string, string> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "typescriptreact",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascriptreact"
}

/** Finds a language's server, or the failure that names the install that repairs it. */
const resolveServer = (language: LanguageId, root: string): Resolved | Failed => {
  const node = process.execPath
  if (language === "typescript") {
    const script =
      projectBin(root, "typescript-language-server") ??
      (() => {
        const dir = packageDir("typescript-language-server", root)
        return dir === undefined ? undefined : path.join(dir, "lib", "cli.mjs")
      })()
    const typescript = packageDir("typescript", root)
    if (script === undefined || !fs.existsSync(script) || typescript === undefined)
      return failure(
        "unavailable",
        `The TypeScript language server is not installed (${script === undefined ? "typescript-language-server" : "typescript"} was found neither in the project's node_modules nor beside agentic-workspace). Install it: \`${repair(language)}\` (in the project, or where agentic-workspace is installed), or leave "typescript" out of the languageServers setting.`
      )
    const serverDir = packageAbove(script)
    const version = readManifest(path.join(serverDir, "package.json")).version ?? "unknown"
    const tsVersion = readManifest(path.join(typescript, "package.json")).version ?? "unknown"
    return {
      argv: [node, script, "--stdio"],
      info: { name: "typescript-language-server", version: `${version} (typescript ${tsVersion})` },
      readable: [serverDir, typescript],
      initializationOptions: {
        // One semantic tsserver: the syntax-only one would answer definitions and references before the project loaded.
        tsserver: { path: path.join(typescript, "lib", "tsserver.js"), logVerbosity: "off", useSyntaxServer: "never" },
        maxTsServerMemory: SERVER_HEAP_MB,
        disableAutomaticTypingAcquisition: true,
        preferences: { includeCompletionsForModuleExports: false }
      },
      languageIdOf: (file) => TS_LANGUAGE_IDS[file.slice(file.lastIndexOf(".") + 1).toLowerCase()] ?? "typescript"
    }
  }
  const script =
    projectBin(root, "pyright-langserver") ??
    (() => {
      const dir = packageDir("pyright", root)
      return dir === undefined ? undefined : path.join(dir, "langserver.index.js")
    })()
  if (script === undefined || !fs.existsSync(script))
    return failure(
      "unavailable",
      `The Python language server (pyright) is not installed (found neither in the project's node_modules nor beside agentic-workspace). Install it: \`${repair(language)}\` (in the project, or where agentic-workspace is installed), or leave "python" out of the languageServers setting.`
    )
  const serverDir = packageAbove(script)
  return {
    argv: [node, script, "--stdio"],
    info: { name: "pyright", version: readManifest(path.join(serverDir, "package.json")).version ?? "unknown" },
    readable: [serverDir],
    initializationOptions: {},
    languageIdOf: () => "python"
  }
}

const inside = (parent: string, child: string) =>
  child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`)

/**
 * The bubblewrap argv of a language server: the whole filesystem read-only (the root included: a server
 * writes nothing of the project), a fresh /dev and /proc, a private /tmp (with HOME in it) that vanishes with
 * the server, the root and the server's packages bound read-only again when they live under /tmp, the
 * approval key's folder hidden, no network, new PID, IPC and UTS namespaces, killed with its parent.
 */
export const languageServerBwrapArgs = (
  bwrap: string,
  root: string,
  readable: ReadonlyArray<string>,
  hidden: ReadonlyArray<string>
): Array<string> => {
  const argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
  argv.push("--dir", SANDBOX_HOME)
  for (const dir of [root, ...readable, path.dirname(process.execPath)])
    if (inside("/tmp", dir)) argv.push("--ro-bind", dir, dir)
  for (const folder of hidden) {
    const underTmp = inside("/tmp", folder) && !inside(root, folder)
    if (!underTmp && fs.existsSync(folder)) argv.push("--tmpfs", folder, "--remount-ro", folder)
  }
  argv.push("--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session")
  argv.push("--chdir", root, "--")
  return argv
}

/** How a server is confined on this host under the commandSandbox setting, or why it is refused. */
const confinement = (
  settings: Settings,
  root: string,
  readable: ReadonlyArray<string>
): { prefix: ReadonlyArray<string>; sandboxed: boolean; reason?: string } | Failed => {
  const support = sandboxSupport()
  const decision = decideSandbox(settings.commandSandbox, support)
  if ("code" in decision) {
    return new Failed({
      ...languageServerFailure(
        "unavailable",
        `commandSandbox is "required" but a language server cannot be sandboxed here: ${support.reason ?? "no sandbox"}. Nothing was started. Ask the user to install bubblewrap (Linux) or to set commandSandbox to "auto" or "off".`
      ),
      sandboxUnavailable: support.reason ?? "no sandbox"
    })
  }
  if (decision._tag === "Unconfined") return { prefix: [], sandboxed: false, reason: decision.reason }
  if (support.mechanism === "bwrap")
    return { prefix: languageServerBwrapArgs(bwrapPath(), root, readable, support.hidden), sandboxed: true }
  // macOS: writes only to the temporary folders, the key's folder unreadable, no network.
  const profile = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    '(allow file-write* (subpath "/private/tmp") (subpath "/private/var/folders") (literal "/dev/null"))',
    ...support.hidden.map((folder) => `(deny file-read* file-write* (subpath ${JSON.stringify(folder)}))`),
    "(deny network*)",
    "(allow network* (remote unix-socket))"
  ].join("\n")
  return { prefix: ["/usr/bin/sandbox-exec", "-p", profile], sandboxed: true }
}

/** The environment a server gets: no secrets of the host's, only what node and a Python lookup need. */
const serverEnv = (sandboxed: boolean): Record<string, string> => ({
  PATH: process.env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin",
  LANG: process.env["LANG"] ?? "C.UTF-8",
  HOME: sandboxed ? SANDBOX_HOME : (process.env["HOME"] ?? "/tmp"),
  TMPDIR: "/tmp",
  NODE_OPTIONS: `--max-old-space-size=${SERVER_HEAP_MB}`
})

const SYMBOL_KINDS = [
  "",
  "file",
  "module",
  "namespace",
  "package",
  "class",
  "method",
  "property",
  "field",
  "constructor",
  "enum",
  "interface",
  "function",
  "variable",
  "constant",
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "key",
  "null",
  "enum member",
  "struct",
  "event",
  "operator",
  "type parameter"
]
const kindName = (kind: number) => SYMBOL_KINDS[kind] ?? "symbol"
const SEVERITIES = ["error", "error", "warning", "information", "hint"] as const

interface RpcConnection {
  sendRequest(method: string, params?: unknown, token?: unknown): Promise<unknown>
  sendNotification(method: string, params?: unknown): Promise<void>
  onRequest(method: string, handler: (params: unknown) => unknown): void
  onNotification(method: string, handler: (params: unknown) => void): void
  listen(): void
  dispose(): void
}

type Rpc = typeof import("vscode-jsonrpc/node")
let rpcModule: Promise<Rpc> | undefined
/** vscode-jsonrpc, loaded on the first start only (the command's start-up never parses it). */
const loadRpc = () => {
  rpcModule ??= import("vscode-jsonrpc/node")
  return rpcModule
}

interface Published {
  readonly at: number
  readonly diagnostics: ReadonlyArray<LspDiagnostic>
}

/** One running server. */
interface Running {
  readonly child: ChildProcess
  readonly connection: RpcConnection
  readonly resolved: Resolved
  capabilities: Record<string, unknown>
  readonly exited: Promise<never>
  readonly published: Map<string, Published>
  readonly listeners: Set<() => void>
  readonly sandboxed: boolean
  readonly unconfinedReason?: string
  dead: boolean
}

/** The last lines a process wrote to stderr, bounded. */
class Tail {
  private lines: Array<string> = []
  private partial = ""
  push(chunk: string) {
    const parts = (this.partial + chunk).split("\n")
    this.partial = parts.pop() ?? ""
    for (const line of parts) this.lines.push(line.slice(0, 500))
    if (this.lines.length > STDERR_LINES) this.lines = this.lines.slice(-STDERR_LINES)
  }
  text() {
    return [...this.lines, this.partial].filter((line) => line !== "").join("\n")
  }
}

/** The root-relative POSIX path of a file:// URI, or undefined when it is outside the root. */
const relativeOf = (root: string, uri: string): string | undefined => {
  if (!uri.startsWith("file:")) return undefined
  const absolute = fileURLToPath(uri)
  if (!inside(root, absolute)) return undefined
  return path.relative(root, absolute).split(path.sep).join("/")
}

/** One language's server slot: at most one running server, requests one at a time. */
class Slot {
  private running: Running | undefined
  private starting: Promise<Running> | undefined
  private queue: Promise<unknown> = Promise.resolve()
  private idleTimer: NodeJS.Timeout | undefined
  private stopped = false
  /** Times the server was started, for the specs' restart check (docs/CODE.md). */
  starts = 0
  private lastTail = ""

  constructor(
    private readonly language: LanguageId,
    private readonly root: string,
    private readonly settings: Settings
  ) {}

  /** Runs `work` against a started server, alone, under the request deadline. */
  run<A>(work: (server: Running, deadline: number) => Promise<A>): Promise<A> {
    const next = this.queue.then(
      () => this.runNow(work),
      () => this.runNow(work)
    )
    this.queue = next.catch(() => undefined)
    return next
  }

  private async runNow<A>(work: (server: Running, deadline: number) => Promise<A>): Promise<A> {
    if (this.stopped) throw failure("unavailable", "the workspace is closing; its language servers are stopped")
    const deadline = Date.now() + this.settings.languageServerTimeoutMs
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
    try {
      const server = await this.ensure(deadline)
      return await work(server, deadline)
    } finally {
      this.armIdle()
    }
  }

  private armIdle() {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
    this.idleTimer = setTimeout(() => void this.stop(), this.settings.languageServerIdleMinutes * 60_000)
    this.idleTimer.unref()
  }

  /** The running server, or a new one: a start that fails is tried once more, then the call fails. */
  private async ensure(deadline: number): Promise<Running> {
    if (this.running !== undefined && !this.running.dead) return this.running
    this.running = undefined
    this.starting ??= this.start(deadline).catch(async (error: unknown) => {
      if (error instanceof Failed && (error.failure.reason === "unavailable" || Date.now() >= deadline)) throw error
      return this.start(deadline)
    })
    try {
      this.running = await this.starting
      return this.running
    } finally {
      this.starting = undefined
    }
  }

  /** Whether a server process is running now (the specs' idle check). */
  get alive(): boolean {
    return this.running !== undefined && !this.running.dead
  }

  private async start(deadline: number): Promise<Running> {
    const resolved = resolveServer(this.language, this.root)
    if (resolved instanceof Failed) throw resolved
    const confined = confinement(this.settings, this.root, resolved.readable)
    if (confined instanceof Failed) throw confined
    const rpc = await loadRpc()
    const [executable, ...args] = [...confined.prefix, ...resolved.argv]
    this.starts++
    const child = spawn(executable!, args, {
      cwd: this.root,
      env: serverEnv(confined.sandboxed),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true
    })
    const tail = new Tail()
    child.stderr!.setEncoding("utf8")
    child.stderr!.on("data", (chunk: string) => tail.push(chunk))
    const connection = rpc.createMessageConnection(
      new rpc.StreamMessageReader(child.stdout!),
      new rpc.StreamMessageWriter(child.stdin!)
    ) as unknown as RpcConnection
    const published = new Map<string, Published>()
    const listeners = new Set<() => void>()
    const state = { dead: false }
    const exited = new Promise<never>((_, reject) => {
      const onEnd = (how: string) => {
        state.dead = true
        if (running !== undefined) running.dead = true
        this.lastTail = tail.text()
        reject(
          failure(
            "crashed",
            `the ${resolved.info.name} server ${how}${this.lastTail === "" ? " (it wrote nothing to stderr)" : "; its last stderr lines are in stderrTail"}`,
            this.lastTail
          )
        )
        connection.dispose()
      }
      child.on("error", (error) => onEnd(`could not start (${error.message})`))
      child.on("exit", (code, signal) => {
        // bubblewrap reports a server killed by signal N as exit code 128+N.
        const bySignal =
          signal ??
          (confined.sandboxed && code !== null && code > 128
            ? Object.entries(os.constants.signals).find(([, number]) => number === code - 128)?.[0]
            : undefined)
        onEnd(bySignal === undefined || bySignal === null ? `exited with code ${code}` : `was killed (${bySignal})`)
      })
    })
    exited.catch(() => undefined)
    child.stdin!.on("error", () => undefined)
    connection.onNotification("textDocument/publishDiagnostics", (raw) => {
      const params = raw as { uri: string; diagnostics: ReadonlyArray<RawDiagnostic> }
      const rel = relativeOf(this.root, params.uri)
      if (rel === undefined) return
      published.set(rel, { at: Date.now(), diagnostics: params.diagnostics.map((d) => diagnosticOf(rel, d)) })
      if (process.env["AW_LSP_DEBUG"] === "1")
        process.stderr.write(`publish ${rel} ${JSON.stringify(params.diagnostics).slice(0, 200)}\n`)
      for (const listener of listeners) listener()
    })
    connection.onNotification("window/logMessage", () => undefined)
    connection.onNotification("$/progress", () => undefined)
    connection.onNotification("telemetry/event", () => undefined)
    connection.onRequest("workspace/configuration", (raw) => {
      const params = raw as { items: ReadonlyArray<{ section?: string }> }
      return params.items.map((item) =>
        item.section === "python.analysis"
          ? { diagnosticMode: "openFilesOnly", autoSearchPaths: true, useLibraryCodeForTypes: true }
          : item.section === "python"
            ? {}
            : null
      )
    })
    connection.onRequest("window/workDoneProgress/create", () => null)
    connection.onRequest("client/registerCapability", () => null)
    connection.onRequest("client/unregisterCapability", () => null)
    connection.onRequest("window/showMessageRequest", () => null)
    connection.onRequest("workspace/applyEdit", () => ({ applied: false, failureReason: "read-only client" }))
    connection.onRequest("workspace/workspaceFolders", () => [
      { uri: pathToFileURL(this.root).href, name: path.basename(this.root) }
    ])
    connection.listen()
    const running: Running = {
      child,
      connection,
      resolved,
      exited,
      published,
      listeners,
      sandboxed: confined.sandboxed,
      ...(confined.reason === undefined ? {} : { unconfinedReason: confined.reason }),
      capabilities: {},
      dead: state.dead
    }
    const initialized = (await race(
      running,
      connection.sendRequest("initialize", {
        processId: null,
        clientInfo: { name: "agentic-workspace" },
        rootUri: pathToFileURL(this.root).href,
        rootPath: this.root,
        workspaceFolders: [{ uri: pathToFileURL(this.root).href, name: path.basename(this.root) }],
        initializationOptions: resolved.initializationOptions,
        capabilities: {
          general: { positionEncodings: ["utf-16"] },
          textDocument: {
            synchronization: { didSave: false, dynamicRegistration: false },
            documentSymbol: { hierarchicalDocumentSymbolSupport: true },
            definition: { linkSupport: true },
            references: {},
            rename: { prepareSupport: true },
            publishDiagnostics: { relatedInformation: false, versionSupport: true },
            diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false }
          },
          workspace: {
            symbol: {},
            configuration: true,
            workspaceFolders: true,
            workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] }
          },
          window: { workDoneProgress: false }
        }
      }),
      deadline,
      "initialize"
    ).catch((error: unknown) => {
      killGroup(child)
      throw error
    })) as { capabilities?: Record<string, unknown>; serverInfo?: { name?: string; version?: string } }
    await connection.sendNotification("initialized", {})
    running.capabilities = initialized.capabilities ?? {}
    return running
  }

  /** Stops the server: shutdown and exit, then its whole process group. */
  async stop(): Promise<void> {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
    this.idleTimer = undefined
    const server = this.running
    this.running = undefined
    if (server === undefined || server.dead) return
    server.dead = true
    await race(
      server,
      Promise.resolve().then(() => server.connection.sendRequest("shutdown")),
      Date.now() + 2000,
      "shutdown"
    ).catch(() => undefined)
    await Promise.resolve()
      .then(() => server.connection.sendNotification("exit"))
      .catch(() => undefined)
    await Promise.race([server.exited.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 500))])
    killGroup(server.child)
  }

  async close(): Promise<void> {
    this.stopped = true
    await this.stop()
  }

  info(): Promise<ServerInfo> {
    return this.run(async (server) => ({
      ...server.resolved.info,
      sandboxed: server.sandboxed,
      ...(server.unconfinedReason === undefined ? {} : { unconfinedReason: server.unconfinedReason })
    }))
  }
}

const killGroup = (child: ChildProcess) => {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, "SIGKILL")
  } catch {
    try {
      child.kill("SIGKILL")
    } catch {
      // already gone
    }
  }
}

/** A request raced against the server's end and the deadline. */
const race = <A>(server: Pick<Running, "exited">, request: Promise<A>, deadline: number, what: string) => {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          failure(
            "timeout",
            `the language server did not answer ${what} within the deadline (setting languageServerTimeoutMs)`
          )
        ),
      Math.max(0, deadline - Date.now())
    )
  })
  return Promise.race([request, server.exited, timeout]).finally(() => clearTimeout(timer))
}

interface RawDiagnostic {
  readonly range: LspRange
  readonly severity?: number
  readonly message: string
  readonly code?: string | number
  readonly source?: string
}

const diagnosticOf = (rel: string, raw: RawDiagnostic): LspDiagnostic => ({
  path: rel,
  range: raw.range,
  severity: SEVERITIES[raw.severity ?? 1] ?? "error",
  message: raw.message,
  ...(raw.code === undefined ? {} : { code: String(raw.code) }),
  ...(raw.source === undefined ? {} : { source: raw.source })
})

/** A diagnostic as tsserver reports it: 1-based line and offset. */
interface TsDiagnostic {
  readonly start: { readonly line: number; readonly offset: number }
  readonly end: { readonly line: number; readonly offset: number }
  readonly text: string
  readonly code?: number
  readonly category?: string
  readonly source?: string
}

const tsDiagnosticOf = (rel: string, raw: TsDiagnostic): LspDiagnostic => ({
  path: rel,
  range: {
    start: { line: raw.start.line - 1, character: raw.start.offset - 1 },
    end: { line: raw.end.line - 1, character: raw.end.offset - 1 }
  },
  severity:
    raw.category === "warning"
      ? "warning"
      : raw.category === "suggestion"
        ? "hint"
        : raw.category === "message"
          ? "information"
          : "error",
  message: raw.text,
  ...(raw.code === undefined ? {} : { code: String(raw.code) }),
  source: raw.source ?? "typescript"
})

/** The adapter's view of a request's error: a server's answered error is "refused". */
const refusedOf = (error: unknown): unknown =>
  error instanceof Failed ? error : failure("refused", error instanceof Error ? error.message : String(error))

/** The Node host's language servers for the workspace at `root`. */
export const nodeLanguageServers = (
  root: string,
  settings: Settings
): LanguageServersShape & {
  readonly slots: Map<LanguageId, Slot>
} => {
  const slots = new Map<LanguageId, Slot>()
  const slotOf = (language: LanguageId) => {
    let slot = slots.get(language)
    if (slot === undefined) {
      slot = new Slot(language, root, settings)
      slots.set(language, slot)
    }
    return slot
  }
  const languageOf = (file: string) => languageOfPath(file, settings.languageServers)
  const uriOf = (rel: string) => pathToFileURL(path.join(root, rel)).href
  const readText = (rel: string): string => {
    const absolute = path.join(root, rel)
    const real = fs.realpathSync(absolute)
    if (!inside(fs.realpathSync(root), real)) throw failure("refused", `${rel} leads outside the workspace`)
    return fs.readFileSync(real, "utf8")
  }
  const slotFor = (file: string): Slot | Failed => {
    const language = languageOf(file)
    return language === undefined
      ? failure(
          "unavailable",
          `no language server answers for ${file} (TypeScript/JavaScript: .ts .tsx .js .jsx .mts .cts .mjs .cjs; Python: .py .pyi; enabled by the languageServers setting: ${JSON.stringify(settings.languageServers)})`
        )
      : slotOf(language)
  }
  const lift = <A>(promise: () => Promise<A>): Effect.Effect<A, LanguageServerFailure> =>
    Effect.tryPromise({
      try: promise,
      catch: (error) =>
        error instanceof Failed
          ? error.failure
          : languageServerFailure("crashed", error instanceof Error ? error.message : String(error))
    })

  /** Opens `files` (disk text, or the overlay's) for one request, and closes them after. */
  const withOpen = async <A>(
    server: Running,
    files: ReadonlyArray<string>,
    overlay: ReadonlyArray<OverlayDocument>,
    work: () => Promise<A>
  ): Promise<A> => {
    // The staged documents first, so the server never checks a requested file against the disk's version of them.
    const texts = new Map<string, string>()
    for (const doc of overlay) if (languageOf(doc.path) !== undefined) texts.set(doc.path, doc.text)
    for (const file of files) if (!texts.has(file)) texts.set(file, readText(file))
    const opened: Array<string> = []
    try {
      for (const [file, text] of texts) {
        if (languageOf(file) === undefined) continue
        await server.connection.sendNotification("textDocument/didOpen", {
          textDocument: { uri: uriOf(file), languageId: server.resolved.languageIdOf(file), version: 1, text }
        })
        opened.push(file)
      }
      return await work()
    } finally {
      for (const file of opened) {
        server.published.delete(file)
        if (server.dead) continue
        // A connection that ended meanwhile throws at once; the request's own failure is the one to report.
        await Promise.resolve()
          .then(() =>
            server.connection.sendNotification("textDocument/didClose", { textDocument: { uri: uriOf(file) } })
          )
          .catch(() => undefined)
      }
    }
  }

  const request = <A>(server: Running, method: string, params: unknown, deadline: number) =>
    race(
      server,
      Promise.resolve()
        .then(() => server.connection.sendRequest(method, params))
        .catch(async (error: unknown) => {
          // An error the server answered has a numeric code; any other is the connection ending with the server,
          // whose exit (and stderr) follows: that is the failure to report.
          // (vscode-jsonrpc rejects a pending request with a coded error too when the connection ends.)
          const pending = (error as { code?: unknown }).code === -32097
          if (!server.dead && !pending && typeof (error as { code?: unknown }).code === "number") throw refusedOf(error)
          await Promise.race([server.exited, new Promise((resolve) => setTimeout(resolve, 2000))])
          throw failure(
            "crashed",
            `the language server's connection ended (${error instanceof Error ? error.message : String(error)})`
          )
        }),
      deadline,
      method
    ) as Promise<A>

  const locationsOf = (raw: unknown): ReadonlyArray<LspLocation> => {
    const list = raw === null || raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]
    return list.flatMap(
      (entry: { uri?: string; range?: LspRange; targetUri?: string; targetSelectionRange?: LspRange }) => {
        const uri = entry.targetUri ?? entry.uri
        const range = entry.targetSelectionRange ?? entry.range
        if (uri === undefined || range === undefined) return []
        const rel = relativeOf(root, uri)
        return rel === undefined ? [] : [{ path: rel, range }]
      }
    )
  }

  interface RawDocumentSymbol {
    name: string
    kind: number
    range?: LspRange
    selectionRange?: LspRange
    children?: ReadonlyArray<RawDocumentSymbol>
    location?: { uri: string; range: LspRange }
    containerName?: string
  }
  /**
   * A workspace symbol's location is its whole declaration (from `export function`): its name's range is the
   * first occurrence of the name from the start of that range, which definition and references take.
   */
  const nameRange = (rel: string, name: string, range: LspRange): LspRange => {
    let lines: Array<string>
    try {
      lines = readText(rel).split("\n")
    } catch {
      return range
    }
    for (let line = range.start.line; line <= Math.min(range.end.line, lines.length - 1); line++) {
      const text = lines[line] ?? ""
      const from = line === range.start.line ? range.start.character : 0
      const found = new RegExp(`(?<![\\w$])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w$])`, "u").exec(
        text.slice(from)
      )
      if (found !== null) {
        const start = { line, character: from + found.index }
        return { start, end: { line, character: start.character + name.length } }
      }
    }
    return range
  }
  const flattenSymbols = (file: string, raw: ReadonlyArray<RawDocumentSymbol>, container?: string): Array<LspSymbol> =>
    raw.flatMap((symbol) => {
      if (symbol.location !== undefined) {
        const rel = relativeOf(root, symbol.location.uri) ?? file
        return [
          {
            name: symbol.name,
            kind: kindName(symbol.kind),
            path: rel,
            range: symbol.location.range,
            selection: nameRange(rel, symbol.name, symbol.location.range),
            ...(symbol.containerName ? { container: symbol.containerName } : {})
          }
        ]
      }
      const range = symbol.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }
      const own: LspSymbol = {
        name: symbol.name,
        kind: kindName(symbol.kind),
        path: file,
        range,
        selection: symbol.selectionRange ?? range,
        ...(container === undefined ? {} : { container })
      }
      return [own, ...flattenSymbols(file, symbol.children ?? [], symbol.name)]
    })

  /** Waits for the diagnostics of `files` published after `since`, then a short quiet time (push servers). */
  const awaitPublished = (server: Running, files: ReadonlyArray<string>, since: number, deadline: number) =>
    new Promise<void>((resolve, reject) => {
      let quiet: NodeJS.Timeout | undefined
      const check = () => {
        const ready = files.every((file) => (server.published.get(file)?.at ?? 0) >= since)
        if (!ready) return
        if (quiet !== undefined) clearTimeout(quiet)
        quiet = setTimeout(done, 300)
      }
      const timer = setTimeout(
        () => {
          finish()
          reject(
            failure(
              "timeout",
              "the language server published no diagnostics within the deadline (setting languageServerTimeoutMs)"
            )
          )
        },
        Math.max(0, deadline - Date.now())
      )
      const finish = () => {
        clearTimeout(timer)
        if (quiet !== undefined) clearTimeout(quiet)
        server.listeners.delete(check)
      }
      const done = () => {
        finish()
        resolve()
      }
      server.listeners.add(check)
      server.exited.catch((error: unknown) => {
        finish()
        reject(error)
      })
      check()
    })

  const diagnosticsOf = (paths: ReadonlyArray<string>, overlay: ReadonlyArray<OverlayDocument> = []) =>
    lift(async () => {
      const byLanguage = new Map<LanguageId, Array<string>>()
      for (const file of paths) {
        const language = languageOf(file)
        if (language === undefined) continue
        byLanguage.set(language, [...(byLanguage.get(language) ?? []), file])
      }
      const all: Array<LspDiagnostic> = []
      for (const [language, files] of byLanguage) {
        const docs = overlay.filter((doc) => languageOf(doc.path) === language)
        const found = await slotOf(language).run((server, deadline) =>
          withOpen(server, files, docs, async () => {
            const out: Array<LspDiagnostic> = []
            if (language === "typescript") {
              // typescript-language-server only pushes diagnostics, in parts (syntax, then semantics) and when it
              // likes; tsserver's own synchronous requests through it answer exactly once, for the state now.
              for (const file of files)
                for (const command of ["syntacticDiagnosticsSync", "semanticDiagnosticsSync"]) {
                  const response = await request<{ body?: ReadonlyArray<TsDiagnostic> }>(
                    server,
                    "workspace/executeCommand",
                    { command: "typescript.tsserverRequest", arguments: [command, { file: uriOf(file) }] },
                    deadline
                  )
                  for (const item of response?.body ?? []) out.push(tsDiagnosticOf(file, item))
                }
              return out
            }
            if (server.capabilities["diagnosticProvider"] !== undefined) {
              for (const file of files) {
                const report = await request<{ items?: ReadonlyArray<RawDiagnostic> }>(
                  server,
                  "textDocument/diagnostic",
                  { textDocument: { uri: uriOf(file) } },
                  deadline
                )
                for (const item of report?.items ?? []) out.push(diagnosticOf(file, item))
              }
              return out
            }
            const since = Date.now()
            await awaitPublished(server, files, since - 1, deadline)
            for (const file of files) out.push(...(server.published.get(file)?.diagnostics ?? []))
            return out
          })
        )
        all.push(...found)
      }
      return all
    })

  const flattenEdit = (raw: unknown): LspWorkspaceEdit => {
    const edit = (raw ?? {}) as {
      changes?: Record<string, ReadonlyArray<{ range: LspRange; newText: string }>>
      documentChanges?: ReadonlyArray<
        | { textDocument: { uri: string }; edits: ReadonlyArray<{ range: LspRange; newText: string }> }
        | { kind: "rename"; oldUri: string; newUri: string }
        | { kind: "create" | "delete"; uri: string }
      >
    }
    const edits: Array<{ path: string; edits: Array<{ range: LspRange; newText: string }> }> = []
    const renames: Array<{ from: string; to: string }> = []
    const add = (uri: string, list: ReadonlyArray<{ range: LspRange; newText: string }>) => {
      const rel = relativeOf(root, uri)
      if (rel === undefined) throw failure("refused", `the rename would change ${uri}, outside the workspace`)
      const known = edits.find((entry) => entry.path === rel)
      const mapped = list.map((e) => ({ range: e.range, newText: e.newText }))
      if (known === undefined) edits.push({ path: rel, edits: mapped })
      else known.edits.push(...mapped)
    }
    for (const change of edit.documentChanges ?? []) {
      if ("textDocument" in change) add(change.textDocument.uri, change.edits)
      else if (change.kind === "rename") {
        const from = relativeOf(root, change.oldUri)
        const to = relativeOf(root, change.newUri)
        if (from === undefined || to === undefined)
          throw failure("refused", `the rename would move ${change.oldUri} to ${change.newUri}, outside the workspace`)
        renames.push({ from, to })
      } else
        throw failure(
          "refused",
          `the server's rename would ${change.kind} ${change.uri}; only edits and file renames are applied`
        )
    }
    for (const [uri, list] of Object.entries(edit.changes ?? {})) add(uri, list)
    return { edits, renames }
  }

  const shape: LanguageServersShape & { readonly slots: Map<LanguageId, Slot> } = {
    slots,
    languageOf,
    info: (language) => lift(() => slotOf(language).info()),
    documentSymbols: (file) =>
      lift(async () => {
        const slot = slotFor(file)
        if (slot instanceof Failed) throw slot
        return slot.run((server, deadline) =>
          withOpen(server, [file], [], async () =>
            flattenSymbols(
              file,
              (await request<ReadonlyArray<RawDocumentSymbol> | null>(
                server,
                "textDocument/documentSymbol",
                { textDocument: { uri: uriOf(file) } },
                deadline
              )) ?? []
            )
          )
        )
      }),
    workspaceSymbols: (language, query) =>
      lift(async () => {
        // A workspace without a file of the language has none of its symbols: no server is started for it.
        const anchor = anchorFile(root, language, settings)
        if (anchor === undefined) return []
        return slotOf(language).run(async (server, deadline) => {
          // tsserver answers workspace symbols from the projects it has loaded: one file of the project loads it.
          return withOpen(server, language === "typescript" ? [anchor] : [], [], async () => {
            const raw =
              (await request<ReadonlyArray<RawDocumentSymbol> | null>(
                server,
                "workspace/symbol",
                { query },
                deadline
              )) ?? []
            return flattenSymbols("", raw).filter((symbol) => symbol.path !== "")
          })
        })
      }),
    definition: (file, at) =>
      lift(async () => {
        const slot = slotFor(file)
        if (slot instanceof Failed) throw slot
        return slot.run((server, deadline) =>
          withOpen(server, [file], [], async () =>
            locationsOf(
              await request(
                server,
                "textDocument/definition",
                { textDocument: { uri: uriOf(file) }, position: at },
                deadline
              )
            )
          )
        )
      }),
    references: (file, at, includeDeclaration) =>
      lift(async () => {
        const slot = slotFor(file)
        if (slot instanceof Failed) throw slot
        return slot.run((server, deadline) =>
          withOpen(server, [file], [], async () =>
            locationsOf(
              await request(
                server,
                "textDocument/references",
                { textDocument: { uri: uriOf(file) }, position: at, context: { includeDeclaration } },
                deadline
              )
            )
          )
        )
      }),
    diagnostics: (paths, overlay) => diagnosticsOf(paths, overlay),
    rename: (file, at, newName) =>
      lift(async () => {
        const slot = slotFor(file)
        if (slot instanceof Failed) throw slot
        return slot.run((server, deadline) =>
          withOpen(server, [file], [], async () => {
            const params = { textDocument: { uri: uriOf(file) }, position: at }
            const provider = server.capabilities["renameProvider"]
            if (typeof provider === "object" && provider !== null && "prepareProvider" in provider) {
              const prepared = await request(server, "textDocument/prepareRename", params, deadline)
              if (prepared === null || prepared === undefined)
                throw failure(
                  "refused",
                  `the server cannot rename the symbol at ${file}:${at.line + 1}:${at.character + 1}`
                )
            }
            const raw = await request(server, "textDocument/rename", { ...params, newName }, deadline)
            if (raw === null || raw === undefined)
              throw failure(
                "refused",
                `the server found nothing to rename at ${file}:${at.line + 1}:${at.character + 1}`
              )
            return flattenEdit(raw)
          })
        )
      }),
    shutdown: Effect.promise(() => Promise.all([...slots.values()].map((slot) => slot.close()))).pipe(Effect.asVoid)
  }
  return shape
}

/** One file of the language in the workspace (breadth first, skipping node_modules and dot folders), for tsserver to load a project from. */
const anchorFile = (root: string, language: LanguageId, settings: Settings): string | undefined => {
  const queue = [""]
  let seen = 0
  while (queue.length > 0 && seen < 5000) {
    const dir = queue.shift()!
    let entries: Array<fs.Dirent>
    try {
      entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true })
    } catch {
      continue
    }
    entries.sort((a, b) => a.name.localeCompare(b.name))
    for (const entry of entries) {
      seen++
      const rel = dir === "" ? entry.name : `${dir}/${entry.name}`
      if (entry.isFile() && languageOfPath(rel, settings.languageServers) === language && !rel.endsWith(".d.ts"))
        return rel
      if (entry.isDirectory() && entry.name !== "node_modules" && !entry.name.startsWith(".")) queue.push(rel)
    }
  }
  return undefined
}
