/**
 * How a listing or a search finds its candidates, host-free: the directory walk as a step machine
 * (a host drives it with its own directory reads, sync or not) and the git candidate list (the index
 * plus untracked paths, `git ls-files`) filtered by the same .gitignore rules, excludes and pruning.
 * Both yield files in path order (a directory's contents are visited where "dir/" sorts), so a search
 * can dispatch batches while candidates are still being produced and still cap in path order.
 */
import type { DirEntry } from "./HostFs.ts"
import { GITIGNORE, IgnoreStack } from "./gitignore.ts"
import { byPath, GlobSet, isPrunedDir } from "./searchCore.ts"

/** What a walk visits (the Search port's WalkOptions, restated here to keep this module free of the port). */
export interface WalkScope {
  readonly base: string
  readonly includeIgnored: boolean
  readonly excludes: ReadonlyArray<string>
  readonly maxDepth?: number
  readonly directories: boolean
}

/** One walked entry. */
export interface TreeEntry {
  readonly path: string
  readonly type: DirEntry["type"]
}

/** A directory the walk still has to read: where, how deep below the base, and the rules of its parent. */
export interface WalkFrame {
  readonly dir: string
  readonly depth: number
  readonly stack: IgnoreStack
}

type Item = { readonly entry: TreeEntry; readonly frame?: WalkFrame } | { readonly read: WalkFrame }

/** The sort key that puts a directory's contents where they fall in path order ("a/b/x" after "a/b-c"). */
const keyOf = (name: string, isDirectory: boolean) => (isDirectory ? `${name}/` : name)

/**
 * The walk as a step machine: `step()` answers the next entry, or a directory to read (the driver reads
 * it, and its .gitignore when `wantsGitignore` says the listing shows one, then calls `accept`), or
 * undefined at the end. Ignore checks: once per directory; a file is tested only when some rule in force
 * can match a file (a .gitignore of `dir/` rules alone decides nothing about files).
 */
export class TreeWalk {
  private readonly work: Array<Item> = []
  private readonly excludes: GlobSet
  readonly unreadable: Array<string> = []

  constructor(
    private readonly scope: WalkScope,
    /** Where to start: the base with the rules in force there, or (git candidates) an untracked directory. */
    starts: ReadonlyArray<WalkFrame>
  ) {
    this.excludes = new GlobSet(scope.excludes)
    for (let index = starts.length - 1; index >= 0; index--) this.work.push({ read: starts[index]! })
  }

  step(): TreeEntry | WalkFrame | undefined {
    for (;;) {
      const item = this.work.pop()
      if (item === undefined) return undefined
      if ("read" in item) return item.read
      if (item.frame !== undefined) this.work.push({ read: item.frame })
      if (item.entry.type !== "directory" || this.scope.directories) return item.entry
    }
  }

  /** Whether the driver should read `frame.dir`'s .gitignore before `accept`: only where the listing shows one. */
  wantsGitignore(frame: WalkFrame, listed: ReadonlyArray<DirEntry>): boolean {
    return (
      !this.scope.includeIgnored && frame.dir !== this.scope.base && listed.some((entry) => entry.name === GITIGNORE)
    )
  }

  /** The listing of `frame.dir` (undefined: unreadable) and its .gitignore text. */
  accept(frame: WalkFrame, listed: ReadonlyArray<DirEntry> | undefined, gitignore?: string): void {
    if (listed === undefined) {
      this.unreadable.push(frame.dir)
      return
    }
    const { base, includeIgnored, maxDepth } = this.scope
    const stack = includeIgnored || frame.dir === base ? frame.stack : frame.stack.with(frame.dir, gitignore)
    const checkFiles = !includeIgnored && stack.decidesFiles
    const checkDirs = !includeIgnored && !stack.isEmpty
    const descend = maxDepth === undefined || frame.depth + 1 < maxDepth
    const kept: Array<{ key: string; item: Item }> = []
    for (const child of listed) {
      const rel = frame.dir === "" ? child.name : `${frame.dir}/${child.name}`
      const isDirectory = child.type === "directory"
      if (isDirectory && isPrunedDir(rel, base)) continue
      if (!this.excludes.isEmpty && this.excludes.matches(rel)) continue
      if (isDirectory ? checkDirs && stack.ignores(rel, true) : checkFiles && stack.ignores(rel, false)) continue
      const entry = { path: rel, type: child.type }
      kept.push({
        key: keyOf(child.name, isDirectory),
        item: isDirectory && descend ? { entry, frame: { dir: rel, depth: frame.depth + 1, stack } } : { entry }
      })
    }
    kept.sort((a, b) => byPath(b.key, a.key))
    for (const { item } of kept) this.work.push(item)
  }
}

/** What the git candidate filter needs of a host, synchronously (Node: sync fs calls). */
export interface SyncTree {
  /** A directory's entries, or undefined when it cannot be read. */
  readonly readDir: (rel: string) => ReadonlyArray<DirEntry> | undefined
  /** A directory's .gitignore text (through the one reader in gitignore.ts), or undefined. */
  readonly readGitignore: (dir: string) => string | undefined
  /** The type of a path without following a final symlink, or undefined when nothing is there. */
  readonly lstatType: (rel: string) => DirEntry["type"] | undefined
}

/** Runs a TreeWalk to its end over a sync host, yielding its entries. */
export function* driveSync(walk: TreeWalk, tree: SyncTree): Generator<TreeEntry> {
  for (;;) {
    const step = walk.step()
    if (step === undefined) return
    if ("path" in step) {
      yield step
      continue
    }
    const listed = tree.readDir(step.dir)
    walk.accept(
      step,
      listed,
      listed !== undefined && walk.wantsGitignore(step, listed) ? tree.readGitignore(step.dir) : undefined
    )
  }
}

/** One path of `git ls-files -z -t -s -c -o -d -m --directory`, merged over its tags. */
interface GitPath {
  /** The index mode ("100644", "120000", "160000", ...) of a tracked path; undefined for an untracked one. */
  mode?: string
  /** True when only the "H" (cached, unchanged) tag was seen: git vouches for it being on disk as indexed. */
  clean: boolean
  untracked: boolean
}

/**
 * The git call whose output `gitCandidates` reads for a listing: tracked (with modes), deleted, modified
 * (typechanges among them), and untracked with untracked directories collapsed; no excludes, so neither
 * .git/info/exclude nor core.excludesFile can hide a path. -d and -m make git stat every tracked file.
 */
export const GIT_LS_FILES_ARGS: ReadonlyArray<string> = [
  "ls-files",
  "-z",
  "-t",
  "-s",
  "-c",
  "-o",
  "-d",
  "-m",
  "--directory"
]

/**
 * The same call for a search, without -d and -m: the index is trusted for tracked files (no stat of
 * each), since the search worker opens every candidate itself and silently skips what is missing, a
 * symlink, a directory or any other non-regular file, exactly as the walk never hands those over.
 */
export const GIT_LS_FILES_SEARCH_ARGS: ReadonlyArray<string> = ["ls-files", "-z", "-t", "-s", "-c", "-o", "--directory"]

/**
 * Parses the output of GIT_LS_FILES_ARGS run in the directory `base` (paths relative to it). Undefined
 * when git's view cannot be used as is (the base is itself untracked, a name did not decode).
 */
export const parseGitListing = (stdout: string, base: string): Map<string, GitPath> | undefined => {
  if (stdout.includes("\ufffd")) return undefined
  const paths = new Map<string, GitPath>()
  const prefix = base === "" ? "" : `${base}/`
  for (const record of stdout.split("\0")) {
    if (record === "") continue
    const tag = record[0]!
    const rest = record.slice(2)
    if (tag === "?") {
      if (rest === "./" || rest === "") return undefined
      const rel = `${prefix}${rest}`
      paths.set(rel, { clean: false, untracked: true })
      continue
    }
    const tab = rest.indexOf("\t")
    if (tab < 0) return undefined
    const rel = `${prefix}${rest.slice(tab + 1)}`
    const mode = rest.slice(0, rest.indexOf(" "))
    const known = paths.get(rel)
    if (known === undefined) paths.set(rel, { mode, clean: tag === "H", untracked: false })
    else if (tag !== "H") known.clean = false
  }
  return paths
}

const parentOf = (rel: string) => {
  const at = rel.lastIndexOf("/")
  return at < 0 ? "" : rel.slice(0, at)
}

const depthBelow = (rel: string, base: string): number => {
  const inner = base === "" ? rel : rel.slice(base.length + 1)
  let depth = 1
  for (let index = inner.indexOf("/"); index >= 0; index = inner.indexOf("/", index + 1)) depth++
  return depth
}

/**
 * The walk's entries computed from git's list: every tracked or untracked path, checked against the same
 * pruning, excludes and .gitignore stack the walk applies (tracked-but-ignored paths stay hidden; git's
 * own excludes, .git/info/exclude and core.excludesFile are never consulted: the call passes none), with
 * untracked directories (a nested repository among them) walked as the walk does. Undefined when git's
 * view does not describe the disk closely enough (a tracked path under a name that is no longer a
 * directory): the caller walks instead. Yields files in path order; directory entries may come earlier.
 */
export function gitCandidates(
  listing: Map<string, GitPath>,
  tree: SyncTree,
  scope: WalkScope,
  stackAtBase: IgnoreStack
): Array<TreeEntry | WalkFrame> | undefined {
  const { base, includeIgnored, maxDepth } = scope
  const excludes = new GlobSet(scope.excludes)
  // Which directories hold a .gitignore that is on disk (read only those).
  const withGitignore = new Set<string>()
  const existing: Array<{ path: string; type: DirEntry["type"] | "tree" }> = []
  const present = new Set<string>([base])
  const markPresent = (dir: string) => {
    for (let at = dir; !present.has(at); at = parentOf(at)) present.add(at)
  }
  const untrackedFiles = new Set<string>()
  for (const [path, info] of listing) {
    let type: DirEntry["type"] | "tree" | undefined
    if (info.untracked) {
      if (path.endsWith("/")) type = "tree"
      else {
        type = tree.lstatType(path)
        if (type === "directory") type = "tree"
        else if (type !== undefined) untrackedFiles.add(path)
      }
    } else if (info.clean && (info.mode === "100644" || info.mode === "100755")) type = "file"
    else if (info.clean && info.mode === "120000") type = "symlink"
    else {
      type = tree.lstatType(path)
      if (type === "directory") type = "tree"
      if (type === undefined) {
        // A deleted path: its directories may still be there (empty), as the walk would list them.
        for (let dir = parentOf(path); dir !== base && !present.has(dir); dir = parentOf(dir)) {
          if (tree.lstatType(dir) === "directory") {
            markPresent(dir)
            break
          }
        }
      }
    }
    if (type === undefined) continue
    const rel = type === "tree" && path.endsWith("/") ? path.slice(0, -1) : path
    if (rel === base) return undefined
    existing.push({ path: rel, type })
    markPresent(parentOf(rel))
    if (type !== "tree" && rel.endsWith(`/${GITIGNORE}`)) withGitignore.add(parentOf(rel))
    else if (rel === GITIGNORE) withGitignore.add("")
    if (type === "tree" && rel.slice(rel.lastIndexOf("/") + 1) === GITIGNORE) withGitignore.add(parentOf(rel))
  }
  // A tracked path below an untracked non-directory (a directory replaced by a file or a symlink): the
  // index no longer describes the disk there.
  for (const dir of present) if (untrackedFiles.has(dir)) return undefined
  interface DirState {
    readonly visible: boolean
    readonly stack: IgnoreStack
    readonly checkFiles: boolean
  }
  const states = new Map<string, DirState>()
  const hidden: DirState = { visible: false, stack: IgnoreStack.empty, checkFiles: false }
  const stateOf = (dir: string): DirState => {
    const known = states.get(dir)
    if (known !== undefined) return known
    let state: DirState
    if (dir === base)
      state = { visible: true, stack: stackAtBase, checkFiles: !includeIgnored && stackAtBase.decidesFiles }
    else {
      const parent = stateOf(parentOf(dir))
      if (
        !parent.visible ||
        isPrunedDir(dir, base) ||
        (!excludes.isEmpty && excludes.matches(dir)) ||
        (!includeIgnored && !parent.stack.isEmpty && parent.stack.ignores(dir, true))
      )
        state = hidden
      else {
        const stack =
          includeIgnored || !withGitignore.has(dir) ? parent.stack : parent.stack.with(dir, tree.readGitignore(dir))
        state = { visible: true, stack, checkFiles: !includeIgnored && stack.decidesFiles }
      }
    }
    states.set(dir, state)
    return state
  }
  const inDepth = (rel: string) => maxDepth === undefined || depthBelow(rel, base) <= maxDepth
  const out: Array<{ key: string; item: TreeEntry | WalkFrame }> = []
  for (const dir of present) {
    if (dir === base || !stateOf(dir).visible || !scope.directories || !inDepth(dir)) continue
    out.push({ key: dir, item: { path: dir, type: "directory" } })
  }
  for (const candidate of existing) {
    const parent = stateOf(parentOf(candidate.path))
    if (!parent.visible) continue
    if (candidate.type === "tree") {
      // An untracked directory (or a submodule, or a path that became one): walked as the walk would.
      const state = stateOf(candidate.path)
      if (!state.visible || present.has(candidate.path)) continue
      if (scope.directories && inDepth(candidate.path))
        out.push({ key: candidate.path, item: { path: candidate.path, type: "directory" } })
      const depth = depthBelow(candidate.path, base)
      if (maxDepth === undefined || depth < maxDepth)
        out.push({ key: `${candidate.path}/`, item: { dir: candidate.path, depth, stack: parent.stack } })
      continue
    }
    if (!inDepth(candidate.path)) continue
    if (!excludes.isEmpty && excludes.matches(candidate.path)) continue
    if (parent.checkFiles && parent.stack.ignores(candidate.path, false)) continue
    out.push({ key: candidate.path, item: { path: candidate.path, type: candidate.type } })
  }
  out.sort((a, b) => byPath(a.key, b.key))
  return out.map((entry) => entry.item)
}

/** Expands git's candidates into entries, walking the untracked directories among them (lazily, in order). */
export function* expandCandidates(
  items: ReadonlyArray<TreeEntry | WalkFrame>,
  tree: SyncTree,
  scope: WalkScope,
  unreadable: Array<string>
): Generator<TreeEntry> {
  for (const item of items) {
    if ("path" in item) {
      yield item
      continue
    }
    const walk = new TreeWalk(scope, [item])
    yield* driveSync(walk, tree)
    unreadable.push(...walk.unreadable)
  }
}
