/**
 * How a listing or a search finds its candidates, host-free: the directory walk as a step machine
 * (a host drives it with its own directory reads, sync or not) and the git candidate list (the index
 * plus untracked paths, `git ls-files`) filtered by the same .gitignore rules, excludes and pruning.
 * Both yield files in path order (a directory's contents are visited where "dir/" sorts), so a search
 * can dispatch batches while candidates are still being produced and still cap in path order.
 */
import type { DirEntry } from "./HostFs.ts"
import { GITIGNORE, IgnoreStack } from "./gitignore.ts"
import { CLEAN, type GitListing, REGULAR, SYMLINK } from "./gitListing.ts"
import { byPath, GlobSet, isPrunedDir } from "./searchCore.ts"

export { GIT_LS_FILES_ARGS, GIT_LS_FILES_SEARCH_ARGS, type GitListing, parseGitListing } from "./gitListing.ts"

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

/** What the walk's work stack holds: an entry to yield, or a directory to read (a frame has no `path`). */
type Item = TreeEntry | WalkFrame

/** Whether `names` is in path order (a host's scandir usually answers so: then nothing is sorted). */
const inPathOrder = (listed: ReadonlyArray<DirEntry>): boolean => {
  for (let index = 1; index < listed.length; index++) if (!(listed[index - 1]!.name < listed[index]!.name)) return false
  return true
}

/**
 * The walk as a step machine: `step()` answers the next entry, or a directory to read (the driver reads
 * it, and its .gitignore when `wantsGitignore` says the listing shows one, then calls `accept`), or
 * undefined at the end. Ignore checks: once per directory; a file is tested only when some rule in force
 * can match a file (a .gitignore of `dir/` rules alone decides nothing about files). The work stack holds
 * the entries and frames themselves (no wrapper per entry), and a listing already in name order (as
 * scandir gives it) is not sorted again: only its directories' contents are merged in where "dir/" sorts.
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
    for (let index = starts.length - 1; index >= 0; index--) this.work.push(starts[index]!)
  }

  step(): TreeEntry | WalkFrame | undefined {
    for (;;) {
      const item = this.work.pop()
      if (item === undefined) return undefined
      if (!("path" in item)) return item
      if (item.type !== "directory" || this.scope.directories) return item
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
    const children = inPathOrder(listed) ? listed : [...listed].sort((a, b) => byPath(a.name, b.name))
    // In path order: each kept child, and a kept directory's contents (keyed "name/") once every later name
    // that sorts before "name/" (a sibling "name.txt", "name-2") is out. Such names extend the pending
    // directory's name, so the pending keys form a stack whose top sorts first.
    const kept: Array<Item> = []
    const pending: Array<{ readonly key: string; readonly frame: WalkFrame }> = []
    const depth = frame.depth + 1
    for (const child of children) {
      const rel = frame.dir === "" ? child.name : `${frame.dir}/${child.name}`
      const isDirectory = child.type === "directory"
      if (isDirectory && isPrunedDir(rel, base)) continue
      if (!this.excludes.isEmpty && this.excludes.matches(rel)) continue
      if (isDirectory ? checkDirs && stack.ignores(rel, true) : checkFiles && stack.ignores(rel, false, child.name))
        continue
      while (pending.length > 0 && pending[pending.length - 1]!.key < child.name) kept.push(pending.pop()!.frame)
      kept.push({ path: rel, type: child.type })
      if (isDirectory && descend) pending.push({ key: `${child.name}/`, frame: { dir: rel, depth, stack } })
    }
    while (pending.length > 0) kept.push(pending.pop()!.frame)
    for (let index = kept.length - 1; index >= 0; index--) this.work.push(kept[index]!)
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

const parentOf = (rel: string) => {
  const at = rel.lastIndexOf("/")
  return at < 0 ? "" : rel.slice(0, at)
}

/** Whether `dir` is the parent directory of `rel`, without slicing (consecutive paths mostly share one). */
const isParent = (dir: string, rel: string): boolean =>
  dir === ""
    ? rel.indexOf("/") < 0
    : rel.length > dir.length + 1 &&
      rel.charCodeAt(dir.length) === 47 &&
      rel.startsWith(dir) &&
      rel.indexOf("/", dir.length + 1) < 0

const depthBelow = (rel: string, base: string): number => {
  const inner = base === "" ? rel : rel.slice(base.length + 1)
  let depth = 1
  for (let index = inner.indexOf("/"); index >= 0; index = inner.indexOf("/", index + 1)) depth++
  return depth
}

const nameOf = (rel: string) => rel.slice(rel.lastIndexOf("/") + 1)

type Keyed = { readonly key: string; readonly item: TreeEntry | WalkFrame }

/**
 * The walk's entries computed from git's list: every tracked or untracked path, checked against the same
 * pruning, excludes and .gitignore stack the walk applies (tracked-but-ignored paths stay hidden; git's
 * own excludes, .git/info/exclude and core.excludesFile are never consulted: the call passes none), with
 * untracked directories (a nested repository among them) walked as the walk does. Undefined when git's
 * view does not describe the disk closely enough (a tracked path under a name that is no longer a
 * directory): the caller walks instead. Yields files in path order; directory entries may come earlier.
 * The tracked paths (nearly all of them) stay in git's order and are merged with the few others (sorted
 * alone), lazily: an entry is made (and its directory's rules asked) only when the consumer gets to it,
 * so a capped search never builds the rest and nothing per path outlives its batch; a directory's state
 * is looked up once per run of paths in it, not once per path.
 */
export function gitCandidates(
  listing: GitListing,
  tree: SyncTree,
  scope: WalkScope,
  stackAtBase: IgnoreStack
): Iterable<TreeEntry | WalkFrame> | undefined {
  const found = onDisk(listing, tree, scope.base)
  if (found === undefined) return undefined
  const rules = dirRules(found, tree, scope, stackAtBase)
  const extra = extraItems(found, rules)
  const tracked = () => trackedEntries(listing.tracked, found.types, rules)
  const byKey = (a: Keyed, b: Keyed) => byPath(a.key, b.key)
  if (!listing.sorted) {
    const all: Array<Keyed> = [...extra]
    for (const entry of tracked()) all.push({ key: entry.path, item: entry })
    all.sort(byKey)
    return all.map((entry) => entry.item)
  }
  extra.sort(byKey)
  return (function* merged(): Generator<TreeEntry | WalkFrame> {
    let next = 0
    for (const entry of tracked()) {
      while (next < extra.length && extra[next]!.key < entry.path) yield extra[next++]!.item
      yield entry
    }
    while (next < extra.length) yield extra[next++]!.item
  })()
}

/** What git's listing says is on disk below the base, before any rule is applied. */
interface OnDisk {
  readonly base: string
  /** Directories that hold a .gitignore on disk (only those are read). */
  readonly withGitignore: Set<string>
  /** The base and every directory known to hold something. */
  readonly present: Set<string>
  /** Untracked paths and trees (directories to walk): few, with their types. */
  readonly others: Array<{ path: string; type: DirEntry["type"] | "tree" }>
  /** Each tracked path's type when it is a candidate entry (undefined: gone, or a tree among `others`). */
  readonly types: Array<DirEntry["type"] | undefined>
}

const markPresent = (found: OnDisk, dir: string) => {
  for (let at = dir; !found.present.has(at); at = parentOf(at)) found.present.add(at)
}

const noteGitignore = (found: OnDisk, rel: string) => {
  if (nameOf(rel) === GITIGNORE) found.withGitignore.add(parentOf(rel))
}

/**
 * The untracked and the tracked paths' types (a tracked path git does not vouch for is looked at), and the
 * directories present. Undefined when the listing cannot be used: the base itself is a listed path, or a
 * tracked path lies below an untracked non-directory (a directory replaced by a file or a symlink: the
 * index no longer describes the disk there).
 */
const onDisk = (listing: GitListing, tree: SyncTree, base: string): OnDisk | undefined => {
  const { tracked, flags } = listing
  const found: OnDisk = {
    base,
    withGitignore: new Set(),
    present: new Set([base]),
    others: [],
    types: new Array(tracked.length)
  }
  const untrackedFiles = new Set<string>()
  for (const path of listing.untracked) {
    let type: DirEntry["type"] | "tree" | undefined
    if (path.endsWith("/")) type = "tree"
    else {
      type = tree.lstatType(path)
      if (type === "directory") type = "tree"
      else if (type !== undefined) untrackedFiles.add(path)
    }
    if (type === undefined) continue
    const rel = type === "tree" && path.endsWith("/") ? path.slice(0, -1) : path
    if (rel === base) return undefined
    found.others.push({ path: rel, type })
    markPresent(found, parentOf(rel))
    noteGitignore(found, rel)
  }
  let lastParent: string | undefined
  for (let index = 0; index < tracked.length; index++) {
    const path = tracked[index]!
    const type = trackedType(found, tree, path, flags[index]!)
    if (type === undefined) continue
    if (path === base) return undefined
    if (type === "tree") found.others.push({ path, type })
    else found.types[index] = type
    if (lastParent === undefined || !isParent(lastParent, path)) {
      lastParent = parentOf(path)
      markPresent(found, lastParent)
    }
    noteGitignore(found, path)
  }
  for (const dir of found.present) if (untrackedFiles.has(dir)) return undefined
  return found
}

/** A tracked path's type: from its flags when git vouches for it, else from the disk (undefined: deleted). */
const trackedType = (
  found: OnDisk,
  tree: SyncTree,
  path: string,
  flag: number
): DirEntry["type"] | "tree" | undefined => {
  if (flag === (CLEAN | REGULAR)) return "file"
  if (flag === (CLEAN | SYMLINK)) return "symlink"
  const type = tree.lstatType(path)
  if (type === "directory") return "tree"
  if (type === undefined) {
    // A deleted path: its directories may still be there (empty), as the walk would list them.
    for (let dir = parentOf(path); dir !== found.base && !found.present.has(dir); dir = parentOf(dir)) {
      if (tree.lstatType(dir) === "directory") {
        markPresent(found, dir)
        break
      }
    }
  }
  return type
}

/** A directory's standing: whether the walk would reach it, the rules in force inside, whether files need a check. */
interface DirState {
  readonly visible: boolean
  readonly stack: IgnoreStack
  readonly checkFiles: boolean
}

const hidden: DirState = { visible: false, stack: IgnoreStack.empty, checkFiles: false }

/** The walk's rules over git's paths: each directory's state (asked once, lazily), the depth and the keep test. */
interface DirRules {
  readonly scope: WalkScope
  readonly stateOf: (dir: string) => DirState
  readonly inDepth: (rel: string) => boolean
  readonly keep: (path: string, parent: DirState) => boolean
}

const dirRules = (found: OnDisk, tree: SyncTree, scope: WalkScope, stackAtBase: IgnoreStack): DirRules => {
  const { base, includeIgnored, maxDepth } = scope
  const excludes = new GlobSet(scope.excludes)
  const states = new Map<string, DirState>()
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
          includeIgnored || !found.withGitignore.has(dir)
            ? parent.stack
            : parent.stack.with(dir, tree.readGitignore(dir))
        state = { visible: true, stack, checkFiles: !includeIgnored && stack.decidesFiles }
      }
    }
    states.set(dir, state)
    return state
  }
  const inDepth = (rel: string) => maxDepth === undefined || depthBelow(rel, base) <= maxDepth
  const keep = (path: string, parent: DirState) =>
    inDepth(path) &&
    (excludes.isEmpty || !excludes.matches(path)) &&
    !(parent.checkFiles && parent.stack.ignores(path, false))
  return { scope, stateOf, inDepth, keep }
}

/** Directory entries, untracked paths and trees to walk, keyed where they fall in path order. */
const extraItems = (found: OnDisk, rules: DirRules): Array<Keyed> => {
  const { scope, stateOf, inDepth, keep } = rules
  const { base, maxDepth } = scope
  const extra: Array<Keyed> = []
  if (scope.directories)
    for (const dir of found.present) {
      if (dir === base || !stateOf(dir).visible || !inDepth(dir)) continue
      extra.push({ key: dir, item: { path: dir, type: "directory" } })
    }
  for (const candidate of found.others) {
    const parent = stateOf(parentOf(candidate.path))
    if (!parent.visible) continue
    if (candidate.type === "tree") {
      // An untracked directory (or a submodule, or a path that became one): walked as the walk would.
      const state = stateOf(candidate.path)
      if (!state.visible || found.present.has(candidate.path)) continue
      if (scope.directories && inDepth(candidate.path))
        extra.push({ key: candidate.path, item: { path: candidate.path, type: "directory" } })
      const depth = depthBelow(candidate.path, base)
      if (maxDepth === undefined || depth < maxDepth)
        extra.push({ key: `${candidate.path}/`, item: { dir: candidate.path, depth, stack: parent.stack } })
      continue
    }
    if (keep(candidate.path, parent))
      extra.push({ key: candidate.path, item: { path: candidate.path, type: candidate.type } })
  }
  return extra
}

/** The tracked candidates in git's order, produced as they are consumed (a capped search stops early). */
function* trackedEntries(
  tracked: ReadonlyArray<string>,
  types: ReadonlyArray<DirEntry["type"] | undefined>,
  rules: DirRules
): Generator<TreeEntry> {
  let dir: string | undefined
  let state = hidden
  for (let index = 0; index < tracked.length; index++) {
    const type = types[index]
    if (type === undefined) continue
    const path = tracked[index]!
    if (dir === undefined || !isParent(dir, path)) {
      dir = parentOf(path)
      state = rules.stateOf(dir)
    }
    if (state.visible && rules.keep(path, state)) yield { path, type }
  }
}

/** Expands git's candidates into entries, walking the untracked directories among them (lazily, in order). */
export function* expandCandidates(
  items: Iterable<TreeEntry | WalkFrame>,
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
