/**
 * The memory filesystem's tree (core/services/MemoryHostFs.ts): its nodes under canonical absolute POSIX
 * paths, and how a path resolves through them (symlinks in every segment, the real hosts' failure reasons).
 * Reads only: the operations that change the tree live in MemoryHostFs.ts.
 */
import { type DirEntry, type FileInfo, HostError, type HostErrorReason } from "./HostFs.ts"
import { normalizeAbsolute } from "./paths.ts"

/** One entry of the tree; a file's bytes, a node's mode and mtime change in place. */
export type Node =
  | { readonly kind: "file"; bytes: Uint8Array; mode: number; mtimeMs: number }
  | { readonly kind: "directory"; mode: number; mtimeMs: number }
  | { readonly kind: "symlink"; readonly target: string; mtimeMs: number }

/** The tree: every node under its canonical path, "/" among them. */
export type Nodes = Map<string, Node>

const MAX_LINKS = 40

export const fail = (reason: HostErrorReason, path: string, message: string) =>
  new HostError({ reason, path, message: `${message}: ${path}` })
export const parentOf = (abs: string) => (abs === "/" ? "/" : normalizeAbsolute(`${abs}/..`))
export const baseOf = (abs: string) => abs.slice(abs.lastIndexOf("/") + 1)
export const childPath = (dir: string, name: string) => (dir === "/" ? `/${name}` : `${dir}/${name}`)

/** Resolves symlinks in every segment (and the last one when `followLast`); the canonical path. */
export const resolve = (nodes: Nodes, input: string, followLast: boolean): string | HostError => {
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

/** The canonical path `abs` resolves to and the node there (undefined when only the last segment is missing). */
export const lookup = (
  nodes: Nodes,
  abs: string,
  follow: boolean
): { path: string; node: Node | undefined } | HostError => {
  const path = resolve(nodes, abs, follow)
  if (typeof path !== "string") return path
  return { path, node: nodes.get(path) }
}

export const infoOf = (node: Node): FileInfo =>
  node.kind === "file"
    ? { type: "file", size: node.bytes.length, mode: node.mode, mtimeMs: node.mtimeMs }
    : node.kind === "directory"
      ? { type: "directory", size: 0, mode: node.mode, mtimeMs: node.mtimeMs }
      : { type: "symlink", size: node.target.length, mode: 0o777, mtimeMs: node.mtimeMs }

/** The canonical parent directory of a new entry at abs, or the failure. */
export const parentDir = (nodes: Nodes, abs: string): string | HostError => {
  const parent = lookup(nodes, parentOf(normalizeAbsolute(abs)), true)
  if (parent instanceof HostError) return parent
  if (parent.node === undefined) return fail("NotFound", abs, "no such file or directory")
  if (parent.node.kind !== "directory") return fail("NotDirectory", abs, "not a directory")
  return parent.path
}

/** A file's stored bytes, not copied (readFile copies; the streaming reads must not). */
export const storedBytes = (nodes: Nodes, abs: string): Uint8Array | HostError => {
  const found = lookup(nodes, abs, true)
  if (found instanceof HostError) return found
  if (found.node === undefined) return fail("NotFound", abs, "no such file or directory")
  if (found.node.kind === "directory") return fail("IsDirectory", abs, "is a directory")
  return (found.node as { bytes: Uint8Array }).bytes
}

/** What stat (`follow`) or lstat sees at abs: undefined when nothing is there. */
export const statOf = (nodes: Nodes, abs: string, follow: boolean): FileInfo | undefined | HostError => {
  const found = lookup(nodes, abs, follow)
  if (found instanceof HostError)
    return found.reason === "NotFound" || found.reason === "NotDirectory" ? undefined : found
  return found.node === undefined ? undefined : infoOf(found.node)
}

/** The entries of the directory at abs, sorted by name. */
export const entriesOf = (nodes: Nodes, abs: string): Array<DirEntry> | HostError => {
  const found = lookup(nodes, abs, true)
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
}

/** The canonical path of the existing entry abs resolves to. */
export const realpathOf = (nodes: Nodes, abs: string): string | HostError => {
  const found = lookup(nodes, abs, true)
  if (found instanceof HostError) return found
  return found.node === undefined ? fail("NotFound", abs, "no such file or directory") : found.path
}
