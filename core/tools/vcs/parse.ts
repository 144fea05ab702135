/** Pure parsers of git's machine formats (the classification of git's failures is core/exec/git.ts's). */

/** What a status letter of porcelain v2 means. */
const CHANGE: Record<string, string> = {
  M: "modified",
  T: "type_changed",
  A: "added",
  D: "deleted",
  R: "renamed",
  C: "copied",
  U: "unmerged"
}

/** One changed path, staged or unstaged. */
export interface StatusEntry {
  readonly path: string
  readonly change: string
  /** The source path of a rename or copy. */
  readonly renamedFrom?: string
}

/** One conflicted path and git's two-letter code (UU, AA, DU, ...). */
export interface ConflictEntry {
  readonly path: string
  readonly code: string
}

/** The parsed `git status --porcelain=v2 --branch -z`. */
export interface RepoStatus {
  readonly branch: string | null
  readonly detached: boolean
  readonly head: string | null
  readonly upstream: string | null
  readonly ahead: number | null
  readonly behind: number | null
  readonly staged: ReadonlyArray<StatusEntry>
  readonly unstaged: ReadonlyArray<StatusEntry>
  readonly untracked: ReadonlyArray<string>
  readonly conflicted: ReadonlyArray<ConflictEntry>
}

/** Parses porcelain v2 with `--branch -z`; paths are relative to the repository's top. */
export const parseStatus = (text: string): RepoStatus => {
  let branch: string | null = null
  let detached = false
  let head: string | null = null
  let upstream: string | null = null
  let ahead: number | null = null
  let behind: number | null = null
  const staged: Array<StatusEntry> = []
  const unstaged: Array<StatusEntry> = []
  const untracked: Array<string> = []
  const conflicted: Array<ConflictEntry> = []
  const records = text.split("\0")
  for (let index = 0; index < records.length; index++) {
    const record = records[index]!
    if (record === "") continue
    if (record.startsWith("# ")) {
      const [, name, ...rest] = record.split(" ")
      const value = rest.join(" ")
      if (name === "branch.oid") head = value === "(initial)" ? null : value
      else if (name === "branch.head") {
        detached = value === "(detached)"
        branch = detached ? null : value
      } else if (name === "branch.upstream") upstream = value
      else if (name === "branch.ab") {
        const match = /^\+(\d+) -(\d+)$/.exec(value)
        if (match !== null) {
          ahead = Number(match[1])
          behind = Number(match[2])
        }
      }
      continue
    }
    const kind = record[0]
    if (kind === "?") {
      untracked.push(record.slice(2))
      continue
    }
    if (kind === "!") continue
    if (kind === "u") {
      // u XY sub m1 m2 m3 mW h1 h2 h3 path
      const fields = record.split(" ")
      conflicted.push({ code: fields[1]!, path: fields.slice(10).join(" ") })
      continue
    }
    if (kind === "1" || kind === "2") {
      // 1 XY sub mH mI mW hH hI path; 2 XY sub mH mI mW hH hI Xscore path NUL origPath
      const fields = record.split(" ")
      const xy = fields[1]!
      const path = fields.slice(kind === "1" ? 8 : 9).join(" ")
      const from = kind === "2" ? records[++index] : undefined
      const entry = (letter: string): StatusEntry => ({
        path,
        change: CHANGE[letter] ?? letter,
        ...(from !== undefined && (letter === "R" || letter === "C") ? { renamedFrom: from } : {})
      })
      if (xy[0] !== ".") staged.push(entry(xy[0]!))
      if (xy[1] !== ".") unstaged.push(entry(xy[1]!))
    }
  }
  return { branch, detached, head, upstream, ahead, behind, staged, unstaged, untracked, conflicted }
}

/** One commit as log and show report it. */
export interface CommitRecord {
  readonly hash: string
  readonly parents: ReadonlyArray<string>
  readonly author: string
  readonly authorEmail: string
  readonly date: string
  readonly subject: string
}

/** The log format: six NUL-separated fields per commit (with -z, commits are NUL-separated too). */
export const LOG_FORMAT = "--format=%H%x00%P%x00%an%x00%ae%x00%aI%x00%s"

/** Parses `git log -z` with LOG_FORMAT. */
export const parseLog = (text: string): ReadonlyArray<CommitRecord> => {
  const fields = text.split("\0")
  const out: Array<CommitRecord> = []
  for (let index = 0; index + 5 < fields.length; index += 6) {
    const hash = fields[index]!.replace(/^\n/, "")
    if (hash === "") break
    out.push({
      hash,
      parents: fields[index + 1]!.split(" ").filter((parent) => parent.length > 0),
      author: fields[index + 2]!,
      authorEmail: fields[index + 3]!,
      date: fields[index + 4]!,
      subject: fields[index + 5]!
    })
  }
  return out
}

/** A local branch. */
export interface LocalBranch {
  readonly name: string
  readonly commit: string
  readonly upstream: string | null
  readonly ahead: number | null
  readonly behind: number | null
  readonly current: boolean
}

/** The for-each-ref format: refname, object, upstream, HEAD marker, upstream track, NUL-separated. */
export const BRANCH_FORMAT =
  "--format=%(refname)%00%(objectname)%00%(upstream:short)%00%(HEAD)%00%(upstream:track,nobracket)"

/** Parses `git for-each-ref BRANCH_FORMAT refs/heads refs/remotes`. */
export const parseBranches = (
  text: string
): {
  readonly local: ReadonlyArray<LocalBranch>
  readonly remote: ReadonlyArray<{ readonly name: string; readonly commit: string }>
} => {
  const local: Array<LocalBranch> = []
  const remote: Array<{ name: string; commit: string }> = []
  for (const line of text.split("\n")) {
    if (line === "") continue
    const [ref, commit, upstream, headMark, track] = line.split("\0")
    if (ref!.startsWith("refs/heads/")) {
      const ahead = /ahead (\d+)/.exec(track ?? "")
      const behind = /behind (\d+)/.exec(track ?? "")
      const known = upstream !== undefined && upstream !== "" && track !== "gone"
      local.push({
        name: ref!.slice("refs/heads/".length),
        commit: commit!,
        upstream: upstream === "" || upstream === undefined ? null : upstream,
        ahead: known ? Number(ahead?.[1] ?? 0) : null,
        behind: known ? Number(behind?.[1] ?? 0) : null,
        current: headMark === "*"
      })
    } else if (ref!.startsWith("refs/remotes/") && !ref!.endsWith("/HEAD")) {
      remote.push({ name: ref!.slice("refs/remotes/".length), commit: commit! })
    }
  }
  return { local, remote }
}

/** One file of a unified diff and its line counts. */
export interface DiffFile {
  readonly path: string
  readonly oldPath?: string
  readonly additions: number
  readonly deletions: number
  readonly binary?: true
}

/** The files of a `git diff` (or `gh pr diff`) output, from its headers and +/- lines. */
export const diffFiles = (text: string): ReadonlyArray<DiffFile> => diffFilesOfLines(text.split("\n"))

/** diffFiles of an output already split at "\n" (a paged diff has its lines). */
export const diffFilesOfLines = (lines: ReadonlyArray<string>): ReadonlyArray<DiffFile> => {
  const files: Array<{ path: string; oldPath?: string; additions: number; deletions: number; binary?: true }> = []
  let current: (typeof files)[number] | undefined
  let inHunk = false
  for (const line of lines) {
    if (line.startsWith("diff --git ")) {
      const match = /^diff --git a\/(.*) b\/(.*)$/.exec(line)
      current = { path: match?.[2] ?? line.slice(11), additions: 0, deletions: 0 }
      if (match !== null && match[1] !== match[2]) current.oldPath = match[1]!
      files.push(current)
      inHunk = false
      continue
    }
    if (current === undefined) continue
    if (line.startsWith("@@")) inHunk = true
    else if (!inHunk && line.startsWith("rename from ")) current.oldPath = line.slice(12)
    else if (!inHunk && line.startsWith("rename to ")) current.path = line.slice(10)
    else if (!inHunk && line.startsWith("Binary files ")) current.binary = true
    else if (inHunk && line.startsWith("+")) current.additions++
    else if (inHunk && line.startsWith("-")) current.deletions++
  }
  return files
}

/** What `gh auth status` says, without ever a token. */
export interface GhAuth {
  readonly authenticated: boolean
  readonly hosts: ReadonlyArray<{
    readonly host: string
    readonly user: string | null
    readonly tokenSource: string | null
  }>
}

/** Parses gh 2.x `auth status` text (it writes to stderr): "Logged in to HOST as USER (SOURCE)". */
export const parseGhAuth = (text: string): GhAuth => {
  const hosts: Array<{ host: string; user: string | null; tokenSource: string | null }> = []
  for (const match of text.matchAll(/Logged in to (\S+?)(?: account)? as (\S+)(?: \(([^)]+)\))?/g)) {
    hosts.push({ host: match[1]!, user: match[2]!, tokenSource: match[3] ?? null })
  }
  return { authenticated: hosts.length > 0, hosts }
}
