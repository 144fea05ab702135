/**
 * The command of `call` (and of `mcp --root`, with its own cache file) from a CommonJS bundle run through
 * `vm.Script` with a V8 code cache (issue 29, the CLI's start). Node 20 has no `module.enableCompileCache`, and an ES module cannot take cached data, so
 * scripts/build.mjs writes the command (adapters/node/cli.ts and all it imports) a second time as one
 * CommonJS file, dist/command-<hash of its text>.cjs; the entry (adapters/node/main.ts) runs it from here for
 * those verbs. The first run compiles it as any load does and, after its answer is out, stores what V8 compiled
 * (`script.createCachedData()`: the top level and every function the call ran); later runs hand that to V8,
 * which then neither parses nor compiles what the cache holds.
 *
 * The cache is bytecode this process runs, so nothing a workspace, a cloned repository or a process the model
 * starts can write may select or supply it:
 * - it lives in the state folder the approval keys live in (`${XDG_STATE_HOME:-$HOME/.local/state}/agentic-workspace`,
 *   core/gate/key.ts), which the command sandbox hides from every command (adapters/node/sandbox.ts), in its
 *   own folder `code-cache/` (created 0700; each file 0600); never when that folder lies inside the workspace
 *   the call opens (a root at the home folder), where a model's edit could reach it;
 * - it is used only when the folder and the file belong to this user and no one else may write them, the file
 *   is a regular file (not a link), and its name matches this bundle's text (the hash the build put in the
 *   bundle's name), the package version, Node's version and the architecture;
 * - anything else (no cache, a corrupt one, one V8 rejects, a folder that cannot be made) is a normal load:
 *   the answer is the same, only slower, and nothing is printed.
 * Windows has no owner or mode bits to check: there the command always loads without a cache.
 */
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as vm from "node:vm"
import { type StateEnv, stateDir } from "../../core/gate/stateDir.ts"
import { makeDirsSync } from "./makeDirs.ts"

/** The command loaded from its CommonJS bundle, and how it went. */
export interface LoadedCommand {
  /** The bundle's `module.exports`. */
  readonly exports: Record<string, unknown>
  /** The cache file this load read or would write, or undefined when caching is off for it. */
  readonly cacheFile: string | undefined
  /** Whether V8 was handed cached data and rejected it (undefined when there was none). */
  readonly cachedDataRejected: boolean | undefined
  /** Writes the cache when there was none or V8 rejected it; call it after the answer is out. Never throws. */
  readonly save: () => void
}

export interface LoadOptions {
  /** The CommonJS bundle (absolute path). */
  readonly file: string
  /** What the cache file's name is keyed by besides the bundle's name: the package version. */
  readonly version: string
  /**
   * The verb the command runs (`call` when absent): its own cache file, because what V8 compiled differs per
   * verb, and `mcp` runs with the heap flags bin/agentic-workspace.js sets for long-lived verbs, which V8
   * checks a cache against (a cache made under other flags would be rejected every time).
   */
  readonly verb?: "call" | "mcp"
  /** The folder the cache lives in (codeCacheDir()), or undefined for no cache. */
  readonly cacheDir: string | undefined
  /** Modules the bundle takes from the entry instead of its own copy (the sandbox probe, whose answer is per process). */
  readonly provided?: Readonly<Record<string, unknown>>
}

/** A path equal to or under a folder (a name inside it that starts with ".." is still inside). */
const within = (dir: string, file: string) => {
  const relative = path.relative(dir, file)
  return relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)
}

/** The real path of `file`, through its deepest existing folder when it does not exist yet. */
const realPathOf = (file: string): string => {
  try {
    return fs.realpathSync(file)
  } catch {
    const parent = path.dirname(file)
    return parent === file ? file : path.join(realPathOf(parent), path.basename(file))
  }
}

/**
 * The code cache's folder for this environment: `code-cache/` in the key store's parent folder
 * (`${XDG_STATE_HOME:-$HOME/.local/state}/agentic-workspace`, hidden from sandboxed commands), or undefined
 * when caching is off: on Windows, without a home, or when the folder lies inside the workspace `root`.
 */
export const codeCacheDir = (root: string, env: StateEnv = process.env): string | undefined => {
  if (process.platform === "win32" || typeof process.getuid !== "function") return undefined
  const home = env.HOME || os.homedir()
  if (!env.XDG_STATE_HOME?.startsWith("/") && !home.startsWith("/")) return undefined
  const dir = `${stateDir({ XDG_STATE_HOME: env.XDG_STATE_HOME, HOME: home })}/code-cache`
  // A workspace at (or above) the folder: the model's own edits could plant a cache there.
  if (within(realPathOf(root), realPathOf(dir)) || within(root, dir)) return undefined
  return dir
}

/** Mode bits that let someone else write. */
const OTHERS_WRITE = 0o022

/** Whether a stat is this user's and no one else may write it. */
const private_ = (stat: fs.Stats) => stat.uid === process.getuid!() && (stat.mode & OTHERS_WRITE) === 0

/** The cache folder, made 0700 when missing; undefined unless it is a real folder this user alone may write. */
const openDir = (dir: string, create: boolean): string | undefined => {
  try {
    // Not { recursive: true }: on Node 20 it spins for ever under /proc (adapters/node/makeDirs.ts).
    if (create) makeDirsSync(dir, 0o700)
    const stat = fs.lstatSync(dir)
    return stat.isDirectory() && private_(stat) ? dir : undefined
  } catch {
    return undefined
  }
}

/** The cached data in `file`, or undefined unless it is a regular file (not a link) this user alone may write. */
const readCache = (file: string): Buffer | undefined => {
  let fd: number | undefined
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
    const stat = fs.fstatSync(fd)
    if (!stat.isFile() || !private_(stat) || stat.size === 0) return undefined
    return fs.readFileSync(fd)
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** Writes the cache under a private temporary name, then renames it into place; removes other builds' caches written over a week ago. */
const writeCache = (dir: string, file: string, data: Buffer) => {
  const temp = path.join(dir, `.${crypto.randomBytes(8).toString("hex")}.tmp`)
  try {
    const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600)
    try {
      fs.writeSync(fd, data)
    } finally {
      fs.closeSync(fd)
    }
    fs.renameSync(temp, file)
  } catch {
    fs.rmSync(temp, { force: true })
    return
  }
  // Another build's or version's cache written over a week ago goes (two installs in use both keep theirs).
  const weekAgo = Date.now() - 7 * 24 * 3600 * 1000
  for (const name of fs.readdirSync(dir)) {
    const other = path.join(dir, name)
    if (!name.endsWith(".v8") || other === file) continue
    try {
      if (fs.lstatSync(other).mtimeMs < weekAgo) fs.rmSync(other, { force: true })
    } catch {
      // gone already
    }
  }
}

/** The name of the cache file of `bundle` (a file name with its text's hash) for this package version and Node. */
export const cacheName = (bundle: string, version: string, verb: "call" | "mcp" = "call"): string =>
  `${path.basename(bundle, ".cjs")}-${verb === "call" ? "" : `${verb}-`}${version}-node${process.version}-${process.arch}.v8`.replace(
    /[^\w.-]/g,
    "_"
  )

/** Loads the CommonJS bundle `options.file` with the code cache when there is a usable one (see the module's comment). */
export const loadCommand = (options: LoadOptions): LoadedCommand => {
  const { file } = options
  const dir = options.cacheDir === undefined ? undefined : openDir(options.cacheDir, false)
  const cacheFile =
    options.cacheDir === undefined
      ? undefined
      : path.join(options.cacheDir, cacheName(file, options.version, options.verb))
  const cachedData = dir === undefined || cacheFile === undefined ? undefined : readCache(cacheFile)
  const source = fs.readFileSync(file, "utf8")
  // The CommonJS wrapper, plus the URL the bundle's `import.meta.url` became (scripts/build.mjs defines it).
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname, __awImportMetaUrl) {${source}\n})`,
    { filename: file, ...(cachedData === undefined ? {} : { cachedData }) }
  )
  const cachedDataRejected = cachedData === undefined ? undefined : script.cachedDataRejected
  const nodeRequire = createRequire(file)
  const provided = options.provided ?? {}
  const require = Object.assign((id: string) => (Object.hasOwn(provided, id) ? provided[id] : nodeRequire(id)), {
    resolve: nodeRequire.resolve,
    cache: nodeRequire.cache,
    main: nodeRequire.main
  })
  const module = { exports: {} as Record<string, unknown> }
  ;(script.runInThisContext() as (...args: Array<unknown>) => void)(
    module.exports,
    require,
    module,
    file,
    path.dirname(file),
    pathToFileURL(file).href
  )
  let saved = false
  const save = () => {
    if (saved || cacheFile === undefined || options.cacheDir === undefined) return
    saved = true
    if (cachedData !== undefined && cachedDataRejected === false) return
    try {
      const folder = openDir(options.cacheDir, true)
      if (folder !== undefined) writeCache(folder, cacheFile, script.createCachedData())
    } catch {
      // No cache this time; the next run compiles again.
    }
  }
  return { exports: module.exports, cacheFile, cachedDataRejected, save }
}
