/**
 * Executable resolution, pure: the platform, PATH and a view of the filesystem are parameters, so the
 * Windows rules are tested on any host. PATH first, then the project's node_modules/.bin. No shell is
 * ever used: on Windows an npm-generated .cmd shim is run as `node <script>`, npm and npx as the
 * Node-bundled CLI beside node.exe, and any other .cmd/.bat is refused (it would need cmd.exe).
 */
import type { Resolution } from "../services/Processes.ts"

/** The filesystem as the resolver sees it (synchronous, side-effect free for the resolver). */
export interface ResolveView {
  /** True when a regular file exists at `path` (on POSIX: and is executable). */
  readonly isFile: (path: string) => boolean
  /** The text of a small file (a .cmd shim), undefined when unreadable. */
  readonly readText: (path: string) => string | undefined
}

/** What to resolve, and where. */
export interface ResolveInput {
  /** A bare executable name ("git", "tsc", "npm"). */
  readonly name: string
  readonly platform: string
  /** The PATH variable as the host has it. */
  readonly pathEnv: string | undefined
  /** Windows PATHEXT (default ".COM;.EXE;.BAT;.CMD"). */
  readonly pathExt?: string | undefined
  /** The project's node_modules/.bin, absolute. */
  readonly projectBinDir: string
  /** The running node binary (node.exe on Windows). */
  readonly nodeExecPath: string
}

const isWindows = (platform: string) => platform === "win32"

/** Joins Windows path parts with backslashes, collapsing "." and ".." (a drive or UNC prefix is kept). */
export const winJoin = (...parts: ReadonlyArray<string>): string => {
  const raw = parts
    .filter((part) => part.length > 0)
    .join("\\")
    .replace(/\//g, "\\")
  const unc = raw.startsWith("\\\\")
  const segments = raw.split("\\").filter((segment, index) => segment.length > 0 || index === 0)
  const out: Array<string> = []
  for (const segment of segments) {
    if (segment === ".") continue
    if (segment === ".." && out.length > 1) out.pop()
    else if (segment !== "..") out.push(segment)
  }
  return `${unc ? "\\\\" : ""}${out.join("\\")}`
}

/** The folder of a Windows path. */
export const winDirname = (path: string): string => {
  const at = path.replace(/\//g, "\\").lastIndexOf("\\")
  return at <= 0 ? path : path.slice(0, at)
}

const posixJoin = (dir: string, name: string) => (dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`)

/** The bare name an allowlist entry is compared with ("TSC.cmd" -> "tsc" on Windows). */
export const allowlistName = (name: string, platform: string): string =>
  isWindows(platform) ? name.toLowerCase().replace(/\.(exe|cmd|bat|com)$/, "") : name

/**
 * The script an npm cmd-shim runs: the last quoted "%dp0%\..." (or "%~dp0\...") path followed by %*,
 * resolved against the shim's folder. undefined when the file is not such a shim.
 */
export const shimTarget = (shimPath: string, text: string): string | undefined => {
  const matches = [...text.matchAll(/"%~?dp0%?\\([^"]+)"\s*%\*/gi)]
  const last = matches[matches.length - 1]
  if (last === undefined) return undefined
  return winJoin(winDirname(shimPath), last[1]!)
}

const searchDirs = (input: ResolveInput): ReadonlyArray<string> => {
  const separator = isWindows(input.platform) ? ";" : ":"
  const dirs = (input.pathEnv ?? "")
    .split(separator)
    .map((dir) => dir.trim().replace(/^"(.*)"$/, "$1"))
    // An empty PATH entry means "the current directory" to a shell; we never search it.
    .filter((dir) => dir.length > 0 && dir !== ".")
  return [...dirs, input.projectBinDir]
}

const viaOf = (input: ResolveInput, dir: string): "PATH" | "node_modules/.bin" =>
  dir === input.projectBinDir ? "node_modules/.bin" : "PATH"

/** Resolves `input.name` for the given platform; never runs anything. */
export const resolveExecutable = (input: ResolveInput, view: ResolveView): Resolution => {
  const searched: Array<string> = []
  if (!isWindows(input.platform)) {
    for (const dir of searchDirs(input)) {
      const candidate = posixJoin(dir, input.name)
      searched.push(candidate)
      if (view.isFile(candidate)) return { _tag: "Found", executable: candidate, via: viaOf(input, dir) }
    }
    return { _tag: "NotFound", searched }
  }
  const extensions = (input.pathExt ?? ".COM;.EXE;.BAT;.CMD")
    .split(";")
    .map((ext) => ext.trim().toLowerCase())
    .filter((ext) => ext.startsWith("."))
  const lower = input.name.toLowerCase()
  const hasExt = extensions.some((ext) => lower.endsWith(ext))
  const names = hasExt ? [input.name] : extensions.map((ext) => `${input.name}${ext}`)
  for (const dir of searchDirs(input)) {
    for (const name of names) {
      const candidate = winJoin(dir, name)
      searched.push(candidate)
      if (!view.isFile(candidate)) continue
      const ext = candidate.slice(candidate.lastIndexOf(".")).toLowerCase()
      if (ext === ".exe" || ext === ".com") return { _tag: "Found", executable: candidate, via: viaOf(input, dir) }
      return windowsScript(input, view, candidate, dir)
    }
  }
  return { _tag: "NotFound", searched }
}

const windowsScript = (input: ResolveInput, view: ResolveView, candidate: string, dir: string): Resolution => {
  const base = allowlistName(candidate.slice(candidate.lastIndexOf("\\") + 1), "win32")
  if (base === "npm" || base === "npx") {
    // The Node-bundled CLI beside node.exe; the prefix-installed npm that npm.cmd would pick is not consulted.
    const script = winJoin(winDirname(input.nodeExecPath), "node_modules", "npm", "bin", `${base}-cli.js`)
    return view.isFile(script)
      ? { _tag: "Found", executable: input.nodeExecPath, script, via: "node" }
      : {
          _tag: "Unsupported",
          path: candidate,
          reason: `the Node-bundled ${base} CLI (${script}) beside node.exe is missing`
        }
  }
  const text = view.readText(candidate)
  const target = text === undefined ? undefined : shimTarget(candidate, text)
  if (target === undefined) {
    return {
      _tag: "Unsupported",
      path: candidate,
      reason:
        "it is a .cmd/.bat script that is not an npm shim, and running it would need cmd.exe (no shell is ever used)"
    }
  }
  if (/\.(exe|com)$/i.test(target)) return { _tag: "Found", executable: target, via: viaOf(input, dir) }
  return { _tag: "Found", executable: input.nodeExecPath, script: target, via: viaOf(input, dir) }
}
