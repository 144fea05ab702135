/**
 * git's candidate list for a listing or a search (core/services/walk.ts filters it): the `git ls-files`
 * calls, and their output parsed into tracked paths with what git vouches for, and untracked paths.
 */

/** What a tracked path's tags and index mode say (one byte per path of a GitListing). */
export const CLEAN = 1
export const REGULAR = 2
export const SYMLINK = 4

/**
 * The output of `git ls-files -z -t -s -c -o [-d -m] --directory`, parsed: each tracked path once
 * (merged over its tags and stages: CLEAN when only the "H" tag was seen, so git vouches for it being on
 * disk as indexed; REGULAR for mode 100644/100755, SYMLINK for 120000) and the untracked paths (an
 * untracked directory with its trailing "/"). `sorted`: the tracked paths came in strictly increasing
 * path order, as git's index order (bytes) gives them except around astral characters, so the
 * candidates are merged in order instead of sorted.
 */
export interface GitListing {
  readonly tracked: ReadonlyArray<string>
  readonly flags: Uint8Array
  readonly untracked: ReadonlyArray<string>
  readonly sorted: boolean
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

const modeFlag = (stdout: string, at: number): number => {
  if (stdout.charCodeAt(at + 6) !== 32) return 0
  if (stdout.startsWith("100644", at) || stdout.startsWith("100755", at)) return REGULAR
  return stdout.startsWith("120000", at) ? SYMLINK : 0
}

/**
 * Parses the output of GIT_LS_FILES_ARGS run in the directory `base` (paths relative to it), one record
 * at a time over the text (no split, no object per path). Undefined when git's view cannot be used as
 * is (the base is itself untracked, a name did not decode, a record is malformed).
 */
export const parseGitListing = (stdout: string, base: string): GitListing | undefined => {
  if (stdout.includes("\ufffd")) return undefined
  const prefix = base === "" ? "" : `${base}/`
  const tracked: Array<string> = []
  const untracked: Array<string> = []
  let flags = new Uint8Array(4096)
  let sorted = true
  /** Where each tracked path is, once the order broke (a path may then come again away from its first record). */
  let where: Map<string, number> | undefined
  for (let at = 0; at < stdout.length; ) {
    let end = stdout.indexOf("\0", at)
    if (end < 0) end = stdout.length
    const next = end + 1
    if (end === at) {
      at = next
      continue
    }
    const tag = stdout.charCodeAt(at)
    if (tag === 63) {
      // "?": untracked.
      const rest = stdout.slice(at + 2, end)
      if (rest === "./" || rest === "") return undefined
      untracked.push(`${prefix}${rest}`)
      at = next
      continue
    }
    const tab = stdout.indexOf("\t", at + 2)
    if (tab < 0 || tab >= end) return undefined
    const rel = `${prefix}${stdout.slice(tab + 1, end)}`
    const clean = tag === 72
    const count = tracked.length
    let known = -1
    if (count > 0 && tracked[count - 1] === rel) known = count - 1
    else if (where !== undefined) known = where.get(rel) ?? -1
    else if (count > 0 && !(tracked[count - 1]! < rel)) {
      sorted = false
      where = new Map(tracked.map((path, index) => [path, index]))
      known = where.get(rel) ?? -1
    }
    if (known >= 0) {
      if (!clean) flags[known] = flags[known]! & ~CLEAN
    } else {
      if (count === flags.length) {
        const bigger = new Uint8Array(count * 2)
        bigger.set(flags)
        flags = bigger
      }
      flags[count] = (clean ? CLEAN : 0) | modeFlag(stdout, at + 2)
      tracked.push(rel)
      where?.set(rel, count)
    }
    at = next
  }
  return { tracked, flags: flags.subarray(0, tracked.length), untracked, sorted }
}
