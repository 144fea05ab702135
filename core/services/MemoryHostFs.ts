/**
 * An in-memory HostFs for tests and embedding: files, directories and symlinks under absolute POSIX
 * paths, with the same failure reasons as the real hosts. The Workspace conformance suite
 * (spec/adapters/workspaceConformance.ts) runs against it and the Node and Deno hosts alike, which is
 * what makes it a faithful fake.
 *
 * @example
 *   const memory = makeMemoryHostFs(["/work"])
 *   memory.symlink("/outside", "/virtual/link")
 *   Layer.succeed(HostFs, memory.host)
 */
import * as Effect from "effect/Effect"
import { type DirEntry, type FileInfo, HostError, type HostErrorReason, type HostFsShape } from "./HostFs.ts"
import { randomHex } from "../text/hex.ts"
import { SCAN_CHUNK_BYTES } from "./hostReads.ts"
import { normalizeAbsolute } from "./paths.ts"

type Node =
  | { readonly kind: "file"; bytes: Uint8Array; mode: number; mtimeMs: number }
  | { readonly kind: "directory"; mode: number; mtimeMs: number }
  | { readonly kind: "symlink"; readonly target: string; mtimeMs: number }

/** A memory filesystem: the HostFs port and test-side helpers the port does not offer. */
export interface MemoryHostFs {
  readonly host: HostFsShape
  /** Creates a symlink at `path` pointing to `target` (absolute, or relative to the link's folder); the failure if it cannot. */
  readonly symlink: (target: string, path: string) => HostError | undefined
}

const MAX_LINKS = 40

/** A fresh memory filesystem with the given directories (and their parents) already present. */
export const makeMemoryHostFs = (directories: ReadonlyArray<string> = []): MemoryHostFs => {
  const nodes = new Map<string, Node>([["/", { kind: "directory", mode: 0o755, mtimeMs: Date.now() }]])
  const locks = new Map<string, Effect.Semaphore>()

  const fail = (reason: HostErrorReason, path: string, message: string) =>
    new HostError({ reason, path, message: `${message}: ${path}` })
  const parentOf = (abs: string) => (abs === "/" ? "/" : normalizeAbsolute(`${abs}/..`))
  const baseOf = (abs: string) => abs.slice(abs.lastIndexOf("/") + 1)
  const childPath = (dir: string, name: string) => (dir === "/" ? `/${name}` : `${dir}/${name}`)

  /** Resolves symlinks in every segment (and the last one when `followLast`); the canonical path. */
  const resolve = (input: string, followLast: boolean): string | HostError => {
    let links = 0
    let pending = normalizeAbsolute(input)
      .split("/")
      .filter((part) => part !== "")
    let current = "/"
    while (pending.length > 0) {
      const [part, ...rest] = pending
      pending = rest
      const next = childPath(current, part!)
      const node = nodes.get(next)
      if (node === undefined) {
        return pending.length === 0 ? next : fail("NotFound", input, "no such file or directory")
      }
      if (node.kind === "symlink" && (pending.length > 0 || followLast)) {
        if (++links > MAX_LINKS) return fail("Other", input, "too many levels of symbolic links")
        const target = node.target.startsWith("/") ? node.target : `${current}/${node.target}`
        pending = [
          ...normalizeAbsolute(target)
            .split("/")
            .filter((segment) => segment !== ""),
          ...pending
        ]
        current = "/"
        continue
      }
      if (node.kind === "file" && pending.length > 0) return fail("NotDirectory", input, "not a directory")
      current = next
    }
    return current
  }

  const lookup = (abs: string, follow: boolean): { path: string; node: Node | undefined } | HostError => {
    const path = resolve(abs, follow)
    if (typeof path !== "string") return path
    return { path, node: nodes.get(path) }
  }

  const infoOf = (node: Node): FileInfo =>
    node.kind === "file"
      ? { type: "file", size: node.bytes.length, mode: node.mode, mtimeMs: node.mtimeMs }
      : node.kind === "directory"
        ? { type: "directory", size: 0, mode: node.mode, mtimeMs: node.mtimeMs }
        : { type: "symlink", size: node.target.length, mode: 0o777, mtimeMs: node.mtimeMs }

  /** The canonical parent directory of a new entry at abs, or the failure. */
  const parentDir = (abs: string): string | HostError => {
    const parent = lookup(parentOf(normalizeAbsolute(abs)), true)
    if (parent instanceof HostError) return parent
    if (parent.node === undefined) return fail("NotFound", abs, "no such file or directory")
    if (parent.node.kind !== "directory") return fail("NotDirectory", abs, "not a directory")
    return parent.path
  }

  const sync = <A>(run: () => A | HostError): Effect.Effect<A, HostError> =>
    Effect.suspend(() => {
      const result = run()
      return result instanceof HostError ? Effect.fail(result) : Effect.succeed(result)
    })

  const writeFile = (abs: string, bytes: Uint8Array, mode: number | undefined, append: boolean) =>
    sync(() => {
      const parent = parentDir(abs)
      if (parent instanceof HostError) return parent
      const target = lookup(abs, true)
      if (target instanceof HostError) return target
      const path = target.node === undefined ? childPath(parent, baseOf(normalizeAbsolute(abs))) : target.path
      const existing = nodes.get(path)
      if (existing?.kind === "directory") return fail("IsDirectory", abs, "is a directory")
      const before = existing?.kind === "file" ? existing.bytes : new Uint8Array()
      const next = append ? new Uint8Array([...before, ...bytes]) : new Uint8Array(bytes)
      nodes.set(path, {
        kind: "file",
        bytes: next,
        mode: mode ?? (existing?.kind === "file" ? existing.mode : 0o644),
        mtimeMs: Date.now()
      })
      return undefined
    })

  // A file's stored bytes, not copied (readFile copies; the streaming reads below must not).
  const stored = (abs: string) =>
    sync((): Uint8Array | HostError => {
      const found = lookup(abs, true)
      if (found instanceof HostError) return found
      if (found.node === undefined) return fail("NotFound", abs, "no such file or directory")
      if (found.node.kind === "directory") return fail("IsDirectory", abs, "is a directory")
      return (found.node as { bytes: Uint8Array }).bytes
    })

  // One memory filesystem lives in one process: its only owner is itself, always alive.
  const owner = { pid: 0, identity: `memory:${randomHex(8)}` }
  const host: HostFsShape = {
    owner,
    ownerAlive: (other) => Effect.succeed(other.identity === owner.identity),
    // The memory host holds every file's bytes already; these look at them in place (no copy of the
    // file), so a huge file's read and stat cost the page, as on the Node and Deno hosts.
    scanFile: (abs, visit) =>
      Effect.map(stored(abs), (bytes) => {
        for (let at = 0; at < bytes.length; at += SCAN_CHUNK_BYTES)
          visit(bytes.subarray(at, Math.min(bytes.length, at + SCAN_CHUNK_BYTES)))
        return bytes.length
      }),
    readRange: (abs, position, length) =>
      Effect.map(stored(abs), (bytes) =>
        bytes.slice(Math.min(position, bytes.length), Math.min(bytes.length, position + Math.max(0, length)))
      ),
    readFile: (abs) => Effect.map(stored(abs), (bytes) => new Uint8Array(bytes)),
    // A memory write is one map update: no reader can see a torn file, which is what atomic means here.
    writeFileAtomic: (abs, bytes, options) => writeFile(abs, bytes, options?.mode, false),
    appendFile: (abs, bytes) => writeFile(abs, bytes, undefined, true),
    stat: (abs) =>
      sync(() => {
        const found = lookup(abs, true)
        if (found instanceof HostError)
          return found.reason === "NotFound" || found.reason === "NotDirectory" ? undefined : found
        return found.node === undefined ? undefined : infoOf(found.node)
      }),
    lstat: (abs) =>
      sync(() => {
        const found = lookup(abs, false)
        if (found instanceof HostError)
          return found.reason === "NotFound" || found.reason === "NotDirectory" ? undefined : found
        return found.node === undefined ? undefined : infoOf(found.node)
      }),
    readDir: (abs) =>
      sync(() => {
        const found = lookup(abs, true)
        if (found instanceof HostError) return found
        if (found.node === undefined) return fail("NotFound", abs, "no such file or directory")
        if (found.node.kind !== "directory") return fail("NotDirectory", abs, "not a directory")
        const prefix = found.path === "/" ? "/" : `${found.path}/`
        const entries: Array<DirEntry> = []
        for (const [path, node] of nodes) {
          if (path !== "/" && path.startsWith(prefix) && !path.slice(prefix.length).includes("/")) {
            entries.push({ name: path.slice(prefix.length), type: node.kind })
          }
        }
        return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      }),
    mkdir: (abs, options) =>
      sync(() => {
        const target = normalizeAbsolute(abs)
        const chain: Array<string> = []
        for (let current = target; ; current = parentOf(current)) {
          chain.unshift(current)
          if (current === "/") break
        }
        for (const [index, path] of chain.entries()) {
          const found = lookup(path, true)
          if (found instanceof HostError) return found
          const last = index === chain.length - 1
          if (found.node !== undefined) {
            if (found.node.kind !== "directory")
              return fail(last ? "AlreadyExists" : "NotDirectory", abs, "not a directory")
            if (last && options?.recursive !== true) return fail("AlreadyExists", abs, "file exists")
            continue
          }
          if (!last && options?.recursive !== true) return fail("NotFound", abs, "no such file or directory")
          const parent = parentDir(path)
          if (parent instanceof HostError) return parent
          nodes.set(childPath(parent, baseOf(path)), { kind: "directory", mode: 0o755, mtimeMs: Date.now() })
        }
        return undefined
      }),
    remove: (abs, options) =>
      sync(() => {
        const found = lookup(abs, false)
        if (found instanceof HostError) return found
        if (found.node === undefined) return fail("NotFound", abs, "no such file or directory")
        if (found.path === "/") return fail("PermissionDenied", abs, "cannot remove the root")
        const prefix = `${found.path}/`
        const below = [...nodes.keys()].filter((path) => path.startsWith(prefix))
        if (found.node.kind === "directory" && below.length > 0 && options?.recursive !== true)
          return fail("NotEmpty", abs, "directory not empty")
        for (const path of below) nodes.delete(path)
        nodes.delete(found.path)
        return undefined
      }),
    rename: (from, to) =>
      sync(() => {
        const source = lookup(from, false)
        if (source instanceof HostError) return source
        if (source.node === undefined) return fail("NotFound", from, "no such file or directory")
        const parent = parentDir(to)
        if (parent instanceof HostError) return parent
        const destination = childPath(parent, baseOf(normalizeAbsolute(to)))
        if (destination === source.path) return undefined
        if (destination.startsWith(`${source.path}/`)) return fail("Other", to, "cannot move a directory into itself")
        const existing = nodes.get(destination)
        if (existing !== undefined) {
          if (existing.kind === "directory" && source.node.kind !== "directory")
            return fail("IsDirectory", to, "is a directory")
          if (existing.kind !== "directory" && source.node.kind === "directory")
            return fail("NotDirectory", to, "not a directory")
          if (existing.kind === "directory" && [...nodes.keys()].some((path) => path.startsWith(`${destination}/`))) {
            return fail("NotEmpty", to, "directory not empty")
          }
        }
        const moved = [...nodes.entries()].filter(
          ([path]) => path === source.path || path.startsWith(`${source.path}/`)
        )
        for (const [path] of moved) nodes.delete(path)
        for (const [path, node] of moved) nodes.set(`${destination}${path.slice(source.path.length)}`, node)
        return undefined
      }),
    chmod: (abs, mode) =>
      sync(() => {
        const found = lookup(abs, true)
        if (found instanceof HostError) return found
        if (found.node === undefined) return fail("NotFound", abs, "no such file or directory")
        if (found.node.kind !== "symlink") found.node.mode = mode & 0o7777
        return undefined
      }),
    realpath: (abs) =>
      sync(() => {
        const found = lookup(abs, true)
        if (found instanceof HostError) return found
        return found.node === undefined ? fail("NotFound", abs, "no such file or directory") : found.path
      }),
    withLock: (abs, effect) =>
      Effect.suspend(() => {
        const key = normalizeAbsolute(abs)
        let lock = locks.get(key)
        if (lock === undefined) {
          lock = Effect.unsafeMakeSemaphore(1)
          locks.set(key, lock)
        }
        return lock.withPermits(1)(effect)
      })
  }

  for (const directory of directories) Effect.runSync(host.mkdir(directory, { recursive: true }))

  return {
    host,
    symlink: (target, path) => {
      const parent = parentDir(path)
      if (parent instanceof HostError) return parent
      const at = childPath(parent, baseOf(normalizeAbsolute(path)))
      if (nodes.has(at)) return fail("AlreadyExists", path, "file exists")
      nodes.set(at, { kind: "symlink", target, mtimeMs: Date.now() })
      return undefined
    }
  }
}
