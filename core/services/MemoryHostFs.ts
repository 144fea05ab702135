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
import { HostError, type HostFsShape } from "./HostFs.ts"
import { randomHex } from "../text/hex.ts"
import { SCAN_CHUNK_BYTES } from "./hostReads.ts"
import {
  baseOf,
  childPath,
  entriesOf,
  fail,
  lookup,
  type Nodes,
  parentDir,
  parentOf,
  realpathOf,
  statOf,
  storedBytes
} from "./memoryTree.ts"
import { normalizeAbsolute } from "./paths.ts"

/** A memory filesystem: the HostFs port and test-side helpers the port does not offer. */
export interface MemoryHostFs {
  readonly host: HostFsShape
  /** Creates a symlink at `path` pointing to `target` (absolute, or relative to the link's folder); the failure if it cannot. */
  readonly symlink: (target: string, path: string) => HostError | undefined
}

/** Writes (or, with `append`, extends) the file abs resolves to; a new file gets `mode` or 0o644. */
const writeNode = (nodes: Nodes, abs: string, bytes: Uint8Array, mode: number | undefined, append: boolean) => {
  const parent = parentDir(nodes, abs)
  if (parent instanceof HostError) return parent
  const target = lookup(nodes, abs, true)
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
}

/** Creates the directory abs (and, with `recursive`, its missing parents). */
const makeDirectory = (nodes: Nodes, abs: string, recursive: boolean) => {
  const target = normalizeAbsolute(abs)
  const chain: Array<string> = []
  for (let current = target; ; current = parentOf(current)) {
    chain.unshift(current)
    if (current === "/") break
  }
  for (const [index, path] of chain.entries()) {
    const found = lookup(nodes, path, true)
    if (found instanceof HostError) return found
    const last = index === chain.length - 1
    if (found.node !== undefined) {
      if (found.node.kind !== "directory") return fail(last ? "AlreadyExists" : "NotDirectory", abs, "not a directory")
      if (last && !recursive) return fail("AlreadyExists", abs, "file exists")
      continue
    }
    if (!last && !recursive) return fail("NotFound", abs, "no such file or directory")
    const parent = parentDir(nodes, path)
    if (parent instanceof HostError) return parent
    nodes.set(childPath(parent, baseOf(path)), { kind: "directory", mode: 0o755, mtimeMs: Date.now() })
  }
  return undefined
}

/** Removes the entry at abs (a symlink itself, not its target); a non-empty directory only when `recursive`. */
const removeNode = (nodes: Nodes, abs: string, recursive: boolean) => {
  const found = lookup(nodes, abs, false)
  if (found instanceof HostError) return found
  if (found.node === undefined) return fail("NotFound", abs, "no such file or directory")
  if (found.path === "/") return fail("PermissionDenied", abs, "cannot remove the root")
  const prefix = `${found.path}/`
  const below = [...nodes.keys()].filter((path) => path.startsWith(prefix))
  if (found.node.kind === "directory" && below.length > 0 && !recursive)
    return fail("NotEmpty", abs, "directory not empty")
  for (const path of below) nodes.delete(path)
  nodes.delete(found.path)
  return undefined
}

/** Moves the entry at `from` (and everything below it) to `to`, replacing a file or an empty directory there. */
const renameNode = (nodes: Nodes, from: string, to: string) => {
  const source = lookup(nodes, from, false)
  if (source instanceof HostError) return source
  if (source.node === undefined) return fail("NotFound", from, "no such file or directory")
  const parent = parentDir(nodes, to)
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
  const moved = [...nodes.entries()].filter(([path]) => path === source.path || path.startsWith(`${source.path}/`))
  for (const [path] of moved) nodes.delete(path)
  for (const [path, node] of moved) nodes.set(`${destination}${path.slice(source.path.length)}`, node)
  return undefined
}

/** Sets the mode of what abs resolves to (a symlink has none of its own). */
const changeMode = (nodes: Nodes, abs: string, mode: number) => {
  const found = lookup(nodes, abs, true)
  if (found instanceof HostError) return found
  if (found.node === undefined) return fail("NotFound", abs, "no such file or directory")
  if (found.node.kind !== "symlink") found.node.mode = mode & 0o7777
  return undefined
}

/** Creates a symlink at `path` pointing to `target`, unless something is there already. */
const makeSymlink = (nodes: Nodes, target: string, path: string) => {
  const parent = parentDir(nodes, path)
  if (parent instanceof HostError) return parent
  const at = childPath(parent, baseOf(normalizeAbsolute(path)))
  if (nodes.has(at)) return fail("AlreadyExists", path, "file exists")
  nodes.set(at, { kind: "symlink", target, mtimeMs: Date.now() })
  return undefined
}

const sync = <A>(run: () => A | HostError): Effect.Effect<A, HostError> =>
  Effect.suspend(() => {
    const result = run()
    return result instanceof HostError ? Effect.fail(result) : Effect.succeed(result)
  })

/** The lock of one path, made on first use. */
const withPathLock =
  (locks: Map<string, Effect.Semaphore>): HostFsShape["withLock"] =>
  (abs, effect) =>
    Effect.suspend(() => {
      const key = normalizeAbsolute(abs)
      let lock = locks.get(key)
      if (lock === undefined) {
        lock = Effect.unsafeMakeSemaphore(1)
        locks.set(key, lock)
      }
      return lock.withPermits(1)(effect)
    })

/** A fresh memory filesystem with the given directories (and their parents) already present. */
export const makeMemoryHostFs = (directories: ReadonlyArray<string> = []): MemoryHostFs => {
  const nodes: Nodes = new Map([["/", { kind: "directory", mode: 0o755, mtimeMs: Date.now() }]])
  // A file's stored bytes, not copied (readFile copies; the streaming reads below must not).
  const stored = (abs: string) => sync(() => storedBytes(nodes, abs))
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
    writeFileAtomic: (abs, bytes, options) => sync(() => writeNode(nodes, abs, bytes, options?.mode, false)),
    appendFile: (abs, bytes) => sync(() => writeNode(nodes, abs, bytes, undefined, true)),
    stat: (abs) => sync(() => statOf(nodes, abs, true)),
    lstat: (abs) => sync(() => statOf(nodes, abs, false)),
    readDir: (abs) => sync(() => entriesOf(nodes, abs)),
    mkdir: (abs, options) => sync(() => makeDirectory(nodes, abs, options?.recursive === true)),
    remove: (abs, options) => sync(() => removeNode(nodes, abs, options?.recursive === true)),
    rename: (from, to) => sync(() => renameNode(nodes, from, to)),
    chmod: (abs, mode) => sync(() => changeMode(nodes, abs, mode)),
    realpath: (abs) => sync(() => realpathOf(nodes, abs)),
    withLock: withPathLock(new Map())
  }

  for (const directory of directories) Effect.runSync(host.mkdir(directory, { recursive: true }))

  return { host, symlink: (target, path) => makeSymlink(nodes, target, path) }
}
