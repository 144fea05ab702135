/**
 * The one `.gitignore` reader: where a directory's .gitignore lives, how its text is read (through
 * HostFs, or a host's own byte source), how it is parsed (the `ignore` package, one matcher per
 * directory that has one, deeper files overriding shallower ones), and the rules in force at a path.
 * Every walker (the host-free walk, the Node walk, the git candidate filter) and every single-path
 * check (stat's `ignored`, a named hidden path) goes through this module.
 *
 * @example
 *   const stack = yield* ignoreStackAt((dir) => readGitignoreText(host, root, dir), "src/deep")
 *   stack.ignores("src/deep/out.log", false)
 */
import * as Effect from "effect/Effect"
import ignore from "ignore"
import type { HostReadsShape } from "./HostFs.ts"
import { join } from "./paths.ts"

/** The file name git reads per directory. */
export const GITIGNORE = ".gitignore"

/** The workspace-relative path of directory `dir`'s .gitignore ("" = the root). */
export const gitignoreRel = (dir: string): string => (dir === "" ? GITIGNORE : `${dir}/${GITIGNORE}`)

const decoder = new TextDecoder()

/** Decodes a .gitignore's bytes (UTF-8; invalid bytes become U+FFFD, as git would not match them either). */
export const gitignoreText = (bytes: Uint8Array): string => decoder.decode(bytes)

/**
 * Reads directory `dir`'s .gitignore through HostFs: its text, or undefined when there is none (or it cannot
 * be read). Most directories have none: a stat says so without the failed read's error (which costs more
 * than the read).
 */
export const readGitignoreText = (
  host: HostReadsShape,
  root: string,
  dir: string
): Effect.Effect<string | undefined> => {
  const abs = join(root, gitignoreRel(dir))
  return host.stat(abs).pipe(
    Effect.flatMap((info) =>
      info === undefined
        ? Effect.succeed(undefined)
        : Effect.map(host.readFile(abs), (bytes): string | undefined => gitignoreText(bytes))
    ),
    Effect.orElseSucceed(() => undefined)
  )
}

/** One .gitignore's rules, anchored at the directory holding it. */
interface IgnoreFrame {
  readonly dir: string
  readonly matcher: ReturnType<typeof ignore>
  /**
   * Whether some rule can decide about a path that is not a directory: a rule ending in "/" matches
   * directories only, so a frame of only such rules (`node_modules/`, `dist/`) is never asked about a file.
   */
  readonly decidesFiles: boolean
  /**
   * When every rule that can match a file only looks at the last path segment (`*.log`, `.env`,
   * `!keep.tmp`, `build-*`): whether a file name may be decided by this frame. Undefined: test every file.
   */
  readonly mayDecide: ((name: string) => boolean) | undefined
}

/** `ignore` refuses names it cannot tell from relative-path syntax (e.g. "..."); such a name is simply not ignored. */
const testPath = (matcher: ReturnType<typeof ignore>, local: string): { ignored: boolean; unignored: boolean } => {
  try {
    return matcher.test(local)
  } catch {
    return { ignored: false, unignored: false }
  }
}

/**
 * Whether a .gitignore text holds a rule that may match a non-directory. Conservative: every line that
 * is not blank, not a comment and does not end in "/" counts (negations included), so a frame is
 * skipped for files only when it certainly cannot decide about one.
 */
export const decidesFiles = (text: string): boolean => {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/(?<!\\)\s+$/, "")
    if (line === "" || line.startsWith("#")) continue
    if (!line.endsWith("/")) return true
  }
  return false
}

const GLOB_CHARS = /[*?[\\]/

/**
 * A quick test of a file name against a .gitignore's file rules, when each of them is a literal name,
 * `*suffix`, `prefix*` or `*` (no slash, no other glob character): undefined when some rule is richer.
 * A name it rejects matches no rule of the file (ignored or negated), so `ignore` need not be asked.
 */
export const nameFilter = (text: string): ((name: string) => boolean) | undefined => {
  const names = new Set<string>()
  const suffixes: Array<string> = []
  const prefixes: Array<string> = []
  let any = false
  for (const raw of text.split(/\r?\n/)) {
    // `ignore` matches case-insensitively by default: so does this test.
    let line = raw.replace(/(?<!\\)\s+$/, "").toLowerCase()
    if (line === "" || line.startsWith("#") || line.endsWith("/")) continue
    if (line.startsWith("!")) line = line.slice(1)
    if (line.includes("/") || line.includes("\\") || line === "") return undefined
    if (line === "*" || line === "**") any = true
    else if (line.startsWith("*") && !GLOB_CHARS.test(line.slice(1))) suffixes.push(line.slice(1))
    else if (line.endsWith("*") && !GLOB_CHARS.test(line.slice(0, -1))) prefixes.push(line.slice(0, -1))
    else if (!GLOB_CHARS.test(line)) names.add(line)
    else return undefined
  }
  if (any) return () => true
  // Asked for every file of a search: plain loops, so a call allocates nothing but the lowered name.
  return (given) => {
    const name = given.toLowerCase()
    if (names.has(name)) return true
    for (const suffix of suffixes) if (name.endsWith(suffix)) return true
    for (const prefix of prefixes) if (name.startsWith(prefix)) return true
    return false
  }
}

/** The .gitignore rules in force along one directory path; deeper files override shallower ones. */
export class IgnoreStack {
  private constructor(private readonly frames: ReadonlyArray<IgnoreFrame>) {}

  static readonly empty = new IgnoreStack([])

  /** True when no rule is in force (nothing is ignored). */
  get isEmpty(): boolean {
    return this.frames.length === 0
  }

  /** True when some rule in force may decide about a non-directory path (else every file is kept without a test). */
  get decidesFiles(): boolean {
    return this.frames.some((frame) => frame.decidesFiles)
  }

  /** A stack with the rules of `dir`'s .gitignore (its text) added on top. */
  with(dir: string, text: string | undefined): IgnoreStack {
    if (text === undefined || text.trim() === "") return this
    // .agentic/.gitignore ("*") keeps the toolkit's state out of git; it is not a rule for workspace_inspect,
    // which reads .agentic/ when it is named (the root's rules still decide whether .agentic/ is walked).
    if (dir === ".agentic") return this
    return new IgnoreStack([
      ...this.frames,
      { dir, matcher: ignore().add(text), decidesFiles: decidesFiles(text), mayDecide: nameFilter(text) }
    ])
  }

  /** True when `rel` (workspace-relative) is ignored by the rules in force; `name` is its last segment when known. */
  ignores(rel: string, isDirectory: boolean, name = isDirectory ? "" : rel.slice(rel.lastIndexOf("/") + 1)): boolean {
    for (let index = this.frames.length - 1; index >= 0; index--) {
      const frame = this.frames[index]!
      if (!isDirectory && (!frame.decidesFiles || (frame.mayDecide !== undefined && !frame.mayDecide(name)))) continue
      const local =
        frame.dir === "" ? rel : rel.startsWith(`${frame.dir}/`) ? rel.slice(frame.dir.length + 1) : undefined
      if (local === undefined || local === "") continue
      const result = testPath(frame.matcher, isDirectory ? `${local}/` : local)
      if (result.unignored) return false
      if (result.ignored) return true
    }
    return false
  }
}

/** The ignore rules in force at `base`: the .gitignore of the root and of every directory down to it. */
export const ignoreStackAt = (
  readGitignore: (dir: string) => Effect.Effect<string | undefined>,
  base: string
): Effect.Effect<IgnoreStack> =>
  Effect.gen(function* () {
    let stack = IgnoreStack.empty.with("", yield* readGitignore(""))
    const parts = base === "" ? [] : base.split("/")
    for (let index = 1; index <= parts.length; index++) {
      const dir = parts.slice(0, index).join("/")
      stack = stack.with(dir, yield* readGitignore(dir))
    }
    return stack
  })

/**
 * True when .gitignore hides `rel` or a directory above it, decided as a walk would reach it: each
 * directory from the root down is checked against the rules in force above it, then `rel` itself (a
 * single-path check: stat's `ignored`, a named hidden base).
 */
export const isIgnoredPath = (
  readGitignore: (dir: string) => Effect.Effect<string | undefined>,
  rel: string,
  isDirectory: boolean
): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    if (rel === "") return false
    const parts = rel.split("/")
    let stack = IgnoreStack.empty.with("", yield* readGitignore(""))
    for (let index = 1; index < parts.length; index++) {
      const dir = parts.slice(0, index).join("/")
      if (stack.ignores(dir, true)) return true
      stack = stack.with(dir, yield* readGitignore(dir))
    }
    return stack.ignores(rel, isDirectory)
  })
