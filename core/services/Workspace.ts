/**
 * The confined workspace: every model-given path is resolved inside the root (no "..", no absolute path
 * outside, no symlink whose target leaves the root) and every write refuses protected paths
 * (.git/**, .agentic/** and the configured globs), which stay readable.
 *
 * @example
 *   const ws = yield* Workspace
 *   const rel = yield* ws.resolve("src/a.ts")          // "src/a.ts", or PATH_ESCAPE
 *   yield* ws.write("src/a.ts", bytes)                  // PROTECTED_PATH for ".git/config"
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { minimatch } from "minimatch"
import { echo } from "../protocol/bounds.ts"
import { toolError, type ToolError } from "../protocol/errors.ts"
import { CurrentSettings } from "./CurrentSettings.ts"
import { type DirEntry, type FileInfo, type HostError, HostFs, HostInfo } from "./HostFs.ts"
import { ancestors, basename, confine, dirname, join, relativeTo } from "./paths.ts"

/**
 * Code points HFS+ ignores in names (git's list for CVE-2014-9390) and other default-ignorable ones:
 * `.g<U+200C>it` names `.git` there.
 */
const IGNORABLE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: the class lists combining and joiner code points one by one on purpose.
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8]/gu

/**
 * The name a path segment stands for on the filesystems a repository may be checked out on: lower
 * case (macOS, Windows), without ignorable code points (HFS+), without an NTFS stream suffix
 * (`.git::$INDEX_ALLOCATION` is `.git`) and without trailing dots and spaces (`.git.`, `.git ` are `.git`
 * on Windows).
 */
export const canonicalSegment = (segment: string): string => {
  const name = segment.normalize("NFC").toLowerCase().replace(IGNORABLE, "")
  const stream = name.indexOf(":")
  return (stream < 0 ? name : name.slice(0, stream)).replace(/[. ]+$/, "")
}

/**
 * 8.3 short names NTFS may give a protected folder: `GIT~1` (and git's hashed form `GI7EBA~1`) for `.git`,
 * `AGENTI~1` for `.agentic` (Windows drops the leading dot).
 */
const GIT_SHORT = /^(git|gi7eba)~[0-9]+$/
const AGENTIC_SHORT = /^agenti~[0-9]+$/

/** True when a segment, in any spelling, names `.git` (anywhere) or `.agentic` (at the top). */
const namesProtected = (segment: string, top: boolean): boolean => {
  const canonical = canonicalSegment(segment)
  if (canonical === ".git" || GIT_SHORT.test(canonical)) return true
  return top && (canonical === ".agentic" || AGENTIC_SHORT.test(canonical))
}

/** True when a model-facing tool must not write `rel` (workspace-relative, normalised). */
export const isProtectedPath = (rel: string, patterns: ReadonlyArray<string>): boolean => {
  if (rel === "") return true
  // Every spelling another filesystem reads as .git or .agentic (case, trailing dots and spaces,
  // streams, ignorable code points, 8.3 short names): a repository is shared across systems.
  const segments = rel.split("/")
  if (segments.some((segment, index) => namesProtected(segment, index === 0))) return true
  const canonical = segments.map(canonicalSegment).join("/")
  const candidates = [...new Set([rel, ...ancestors(rel), canonical, ...ancestors(canonical)])]
  return patterns.some((raw) => {
    // "./secrets/**" and "/secrets/**" mean the workspace-relative "secrets/**".
    const pattern = raw.replace(/^(\.\/|\/)+/, "")
    return candidates.some((candidate) =>
      minimatch(candidate, pattern, { dot: true, matchBase: !pattern.includes("/") })
    )
  })
}

/** Turns a host failure into the error a model can act on, naming the relative path only. */
export const hostToToolError = (error: HostError, rel: string): ToolError => {
  switch (error.reason) {
    case "NotFound":
      return toolError("NOT_FOUND", `Nothing exists at "${rel}". Check the path with workspace_inspect list or find.`, {
        path: rel
      })
    case "AlreadyExists":
      return toolError("EDIT_CONFLICT", `"${rel}" already exists.`, { path: rel })
    case "NotDirectory":
      return toolError("EDIT_CONFLICT", `A parent of "${rel}" is a file, not a directory.`, { path: rel })
    case "IsDirectory":
      return toolError("EDIT_CONFLICT", `"${rel}" is a directory, not a file.`, { path: rel })
    case "NotEmpty":
      return toolError("EDIT_CONFLICT", `The directory "${rel}" is not empty.`, { path: rel })
    case "PermissionDenied":
      return toolError("IO_ERROR", `Permission denied for "${rel}".`, { path: rel })
    case "Escape":
      return toolError(
        "PATH_ESCAPE",
        `A directory on the way to "${rel}" was swapped for a symlink while it was being written; nothing was written through the link. Check the folder and try again.`,
        { path: rel }
      )
    default:
      return toolError("IO_ERROR", `The filesystem refused an operation on "${rel}" (${error.reason}).`, { path: rel })
  }
}

/** The confined workspace operations. Every `path` argument is model-given and resolved first. */
export interface WorkspaceShape {
  /** The absolute, real root (never shown to a model). */
  readonly root: string
  /** Resolves a model-given path to a clean relative one, refusing escapes (lexical and through symlinks). */
  readonly resolve: (path: string, field?: string) => Effect.Effect<string, ToolError>
  /** The absolute host path of an already resolved relative path. */
  readonly abs: (rel: string) => string
  readonly isProtected: (rel: string) => boolean
  /** PROTECTED_PATH unless a model-facing tool may write the resolved path. */
  readonly assertWritable: (rel: string) => Effect.Effect<void, ToolError>
  readonly read: (path: string) => Effect.Effect<Uint8Array, ToolError>
  readonly stat: (path: string) => Effect.Effect<FileInfo | undefined, ToolError>
  readonly lstat: (path: string) => Effect.Effect<FileInfo | undefined, ToolError>
  readonly list: (path: string) => Effect.Effect<ReadonlyArray<DirEntry>, ToolError>
  readonly write: (
    path: string,
    bytes: Uint8Array,
    options?: { readonly mode?: number }
  ) => Effect.Effect<void, ToolError>
  readonly mkdir: (path: string, options?: { readonly recursive?: boolean }) => Effect.Effect<void, ToolError>
  readonly remove: (path: string, options?: { readonly recursive?: boolean }) => Effect.Effect<void, ToolError>
  readonly rename: (from: string, to: string) => Effect.Effect<void, ToolError>
  readonly chmod: (path: string, mode: number) => Effect.Effect<void, ToolError>
  /**
   * A commit's staging: writes `bytes` to the fresh file `temp` (a plain name, see `isStageName`) beside
   * `path`, with `path`'s mode (or `mode`), fsynced, without touching `path` itself.
   */
  readonly stage: (
    path: string,
    temp: string,
    bytes: Uint8Array,
    options?: { readonly mode?: number }
  ) => Effect.Effect<void, ToolError>
  /** Renames the staged `temp` over `path` (same directory); durable only after `syncDirectories`. */
  readonly place: (path: string, temp: string) => Effect.Effect<void, ToolError>
  /** Fsyncs the directories holding `paths` (each once), making the renames of `place` durable. */
  readonly syncDirectories: (paths: ReadonlyArray<string>) => Effect.Effect<void, ToolError>
  /** Removes the staged `temp` beside `path` if it is there (a file or link, never a directory). */
  readonly discard: (path: string, temp: string) => Effect.Effect<void, ToolError>
}

/** The shape of a staging name the commit makes (`.<name>.aw-<hex>.tmp`): recovery removes only such names. */
export const isStageName = (temp: string): boolean => /^\.[^/]*\.aw-[0-9a-f]{8,}\.tmp$/.test(temp) && temp.length <= 255

/** The staging name for a file `path` with a random `hex` suffix (the file's name clipped so it fits NAME_MAX). */
export const stageName = (path: string, hex: string): string => `.${basename(path).slice(0, 200)}.aw-${hex}.tmp`

/** The members of the workspace that change it: only a gated action's interpreter may use them. */
export type WorkspaceWriteMember =
  | "write"
  | "mkdir"
  | "remove"
  | "rename"
  | "chmod"
  | "stage"
  | "place"
  | "syncDirectories"
  | "discard"

/** The reading half of the workspace: resolve, stat, read, list. */
export type WorkspaceReadShape = Omit<WorkspaceShape, WorkspaceWriteMember>

/**
 * The confined workspace, read-only: what every handler may use (an ungated `run`, a gated `load`). The
 * writing members are the `WorkspaceWrites` service's, which only an interpreter's context holds, so a
 * handler that writes from `run` or `load` does not type-check (spec/kernel/read-only-context.test.ts).
 */
export class Workspace extends Context.Tag("agentic-workspace/Workspace")<Workspace, WorkspaceReadShape>() {
  /** Builds the workspace (both services, one instance) from the host filesystem, root and protected globs. */
  static readonly layer: Layer.Layer<Workspace | WorkspaceWrites, never, HostFs | HostInfo | CurrentSettings> =
    Layer.effectContext(
      Effect.gen(function* () {
        const host = yield* HostFs
        const info = yield* HostInfo
        const settings = yield* CurrentSettings
        const workspace = makeWorkspace(host, info.root, settings.protectedPatterns)
        return Context.make(Workspace, workspace).pipe(Context.add(WorkspaceWrites, workspace))
      })
    )
}

/** The confined workspace with its writing members: in the context of a gated action's interpreter only. */
export class WorkspaceWrites extends Context.Tag("agentic-workspace/WorkspaceWrites")<
  WorkspaceWrites,
  WorkspaceShape
>() {}

type Host = typeof HostFs.Service

/** PATH_ESCAPE for a model-given path that leads, through a symlink, to a place outside the root. */
const escapeError = (input: string, field: string) =>
  toolError(
    "PATH_ESCAPE",
    `${field} "${echo(input)}" resolves through a symlink to a place outside the workspace; give a path inside the workspace root.`,
    {
      field,
      path: echo(input)
    }
  )

/**
 * The real location of rel (or of its nearest existing ancestor), which must stay inside the root.
 * Returns the real workspace-relative path (symlinks inside the root followed), so a write can also be
 * checked against protection where it would really land.
 */
const checkReal = (host: Host, root: string, rel: string, input: string, field: string) =>
  Effect.gen(function* () {
    let current = rel
    for (;;) {
      const info = yield* Effect.orElseSucceed(host.lstat(join(root, current)), () => undefined)
      if (info !== undefined) {
        const real = yield* Effect.either(host.realpath(join(root, current)))
        if (Either.isLeft(real)) {
          // A dangling symlink: writing through it would create its target, wherever that is.
          return yield* Effect.fail(escapeError(input, field))
        }
        const realRel = relativeTo(root, real.right)
        if (realRel === undefined) return yield* Effect.fail(escapeError(input, field))
        const rest = rel.slice(current.length).replace(/^\//, "")
        return realRel === "" ? rest : rest === "" ? realRel : `${realRel}/${rest}`
      }
      if (current === "") return rel
      current = dirname(current)
    }
  })

/** The checks every member of the workspace shares: a path confined, where it really lands, its protection. */
interface Checks {
  readonly abs: (rel: string) => string
  /** A host failure as the ToolError naming `rel`. */
  readonly mapHost: (rel: string) => <A>(effect: Effect.Effect<A, HostError>) => Effect.Effect<A, ToolError>
  /** The path confined (`rel`) and where it really lands (`real`). */
  readonly resolveBoth: (
    path: string,
    field: string
  ) => Effect.Effect<{ readonly rel: string; readonly real: string }, ToolError>
  readonly resolve: (path: string, field?: string) => Effect.Effect<string, ToolError>
  readonly isProtected: (rel: string) => boolean
  readonly assertWritable: (rel: string) => Effect.Effect<void, ToolError>
  /** The confined path, when neither it nor where it really lands is protected. */
  readonly writable: (path: string, field?: string) => Effect.Effect<string, ToolError>
  /** The real path of the entry itself (a symlink, not what it points to), refused when protected. */
  readonly entryOf: (rel: string, input: string, field: string) => Effect.Effect<string, ToolError>
}

const checksOf = (host: Host, root: string, protectedPatterns: ReadonlyArray<string>): Checks => {
  const abs = (rel: string) => join(root, rel)
  const mapHost =
    (rel: string) =>
    <A>(effect: Effect.Effect<A, HostError>) =>
      Effect.mapError(effect, (error) => hostToToolError(error, rel))

  const resolveBoth = (path: string, field: string) =>
    Effect.gen(function* () {
      const rel = yield* confine(root, path, field)
      const real = yield* checkReal(host, root, rel, path, field)
      return { rel, real }
    })

  const resolve = (path: string, field = "path") => Effect.map(resolveBoth(path, field), ({ rel }) => rel)

  const isProtected = (rel: string) => isProtectedPath(rel, protectedPatterns)
  const assertWritable = (rel: string) =>
    isProtected(rel)
      ? Effect.fail(
          toolError(
            "PROTECTED_PATH",
            rel === ""
              ? "The workspace root itself cannot be written or removed."
              : `"${rel}" is protected (.git/**, .agentic/** and the protectedPatterns setting are readable but never writable by a tool). Choose another path.`,
            { path: rel }
          )
        )
      : Effect.void

  // Protection applies to the path as given and to where it really lands (a symlink to .agentic/ or .git/).
  const writable = (path: string, field = "path") =>
    Effect.flatMap(resolveBoth(path, field), ({ rel, real }) =>
      Effect.as(Effect.zipRight(assertWritable(rel), real === rel ? Effect.void : assertWritable(real)), rel)
    )

  // The real path of the entry itself (its parent's real path plus its own name): what remove and rename
  // act on, since they act on a symlink, not on what it points to.
  const entryOf = (rel: string, input: string, field: string) =>
    Effect.gen(function* () {
      const slash = rel.lastIndexOf("/")
      if (slash < 0) return rel
      const parent = yield* checkReal(host, root, rel.slice(0, slash), input, field)
      const entry = parent === "" ? rel.slice(slash + 1) : `${parent}/${rel.slice(slash + 1)}`
      if (entry !== rel) yield* assertWritable(entry)
      return entry
    })

  return { abs, mapHost, resolveBoth, resolve, isProtected, assertWritable, writable, entryOf }
}

/**
 * The staging steps of a commit. Where the host holds directory handles the temp is created in the
 * checked real directory through its handle; elsewhere at the checked absolute path (with the file's
 * mode carried over by hand, since a fresh temp has none), and the rename fsyncs as it goes.
 */
const stagingOf = (
  host: Host,
  root: string,
  { abs, mapHost, resolveBoth, assertWritable }: Checks
): Pick<WorkspaceShape, "stage" | "place" | "syncDirectories" | "discard"> => {
  const confined = host.confined
  const badTemp = (temp: string) => Effect.die(new Error(`"${temp}" is not a staging name of a commit`))
  const beside = (real: string, temp: string) => (dirname(real) === "" ? temp : `${dirname(real)}/${temp}`)
  const stage = (path: string, temp: string, bytes: Uint8Array, options?: { readonly mode?: number }) =>
    Effect.gen(function* () {
      if (!isStageName(temp)) return yield* badTemp(temp)
      const { rel, real } = yield* resolveBoth(path, "path")
      yield* assertWritable(rel)
      if (real !== rel) yield* assertWritable(real)
      if (confined !== undefined) return yield* mapHost(rel)(confined.stage(root, real, temp, bytes, options))
      const existing = yield* mapHost(rel)(host.lstat(abs(real)))
      const mode = options?.mode ?? (existing?.type === "file" ? existing.mode & 0o7777 : undefined)
      yield* mapHost(rel)(
        host.writeFileAtomic(abs(beside(real, temp)), bytes, mode === undefined ? undefined : { mode })
      )
    })
  const place = (path: string, temp: string) =>
    Effect.gen(function* () {
      if (!isStageName(temp)) return yield* badTemp(temp)
      const { rel, real } = yield* resolveBoth(path, "path")
      yield* assertWritable(rel)
      if (real !== rel) yield* assertWritable(real)
      yield* mapHost(rel)(
        confined === undefined
          ? host.rename(abs(beside(real, temp)), abs(real))
          : confined.rename(root, beside(real, temp), real, { durable: false })
      )
    })
  const syncDirectories = (paths: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      if (confined === undefined) return
      const dirs = new Set<string>()
      for (const path of paths) {
        const { real } = yield* resolveBoth(path, "path")
        dirs.add(dirname(real))
      }
      for (const dir of dirs) yield* mapHost(dir === "" ? "." : dir)(confined.syncDirectory(root, dir))
    })
  const discard = (path: string, temp: string) =>
    Effect.gen(function* () {
      if (!isStageName(temp)) return yield* badTemp(temp)
      const { rel, real } = yield* resolveBoth(path, "path")
      yield* assertWritable(rel)
      const at = beside(real, temp)
      // Through the directory handle, the remove itself is the check: a folder swapped for a link fails
      // PATH_ESCAPE (the undo retries it) instead of looking, through the link, for a temp elsewhere.
      // Its folder missing for a moment (moved aside) fails NOT_FOUND, which the undo retries.
      if (confined !== undefined) return yield* mapHost(rel)(confined.remove(root, at, { missingOk: true }))
      const info = yield* mapHost(rel)(host.lstat(abs(at)))
      if (info === undefined || info.type === "directory") return
      yield* mapHost(rel)(host.remove(abs(at))).pipe(
        Effect.catchIf(
          (error) => error.code === "NOT_FOUND",
          () => Effect.void
        )
      )
    })
  return { stage, place, syncDirectories, discard }
}

/** The workspace over a host filesystem; exported for adapters that build it by hand. */
export const makeWorkspace = (host: Host, root: string, protectedPatterns: ReadonlyArray<string>): WorkspaceShape => {
  const checks = checksOf(host, root, protectedPatterns)
  const { abs, mapHost, resolveBoth, resolve, isProtected, assertWritable, writable, entryOf } = checks

  // Where the host holds directory handles (host.confined), a mutation runs on the checked real path
  // relative to the root, each directory opened without following links: a symlink swapped in after
  // the check is never followed (PATH_ESCAPE). Elsewhere the checked absolute path is used.
  const confined = host.confined
  const writeTo = (path: string, bytes: Uint8Array, options?: { readonly mode?: number }) =>
    Effect.gen(function* () {
      const { rel, real } = yield* resolveBoth(path, "path")
      yield* assertWritable(rel)
      if (real !== rel) yield* assertWritable(real)
      yield* mapHost(rel)(
        confined === undefined
          ? host.writeFileAtomic(abs(rel), bytes, options)
          : confined.writeFileAtomic(root, real, bytes, options)
      )
    })
  const onEntry = (
    path: string,
    field: string,
    viaHandle: (c: NonNullable<typeof confined>, entry: string) => Effect.Effect<void, HostError>,
    viaPath: (rel: string) => Effect.Effect<void, HostError>
  ) =>
    Effect.gen(function* () {
      const rel = yield* writable(path, field)
      if (confined === undefined) return yield* mapHost(rel)(viaPath(rel))
      const entry = yield* entryOf(rel, path, field)
      yield* mapHost(rel)(viaHandle(confined, entry))
    })

  return {
    root,
    resolve,
    ...stagingOf(host, root, checks),
    abs,
    isProtected,
    assertWritable,
    read: (path) => Effect.flatMap(resolve(path), (rel) => mapHost(rel)(host.readFile(abs(rel)))),
    stat: (path) => Effect.flatMap(resolve(path), (rel) => mapHost(rel)(host.stat(abs(rel)))),
    lstat: (path) => Effect.flatMap(resolve(path), (rel) => mapHost(rel)(host.lstat(abs(rel)))),
    list: (path) => Effect.flatMap(resolve(path), (rel) => mapHost(rel)(host.readDir(abs(rel)))),
    write: writeTo,
    mkdir: (path, options) =>
      onEntry(
        path,
        "path",
        (c, entry) => c.mkdir(root, entry, options),
        (rel) => host.mkdir(abs(rel), options)
      ),
    remove: (path, options) =>
      onEntry(
        path,
        "path",
        (c, entry) => c.remove(root, entry, options),
        (rel) => host.remove(abs(rel), options)
      ),
    rename: (from, to) =>
      Effect.gen(function* () {
        const source = yield* writable(from, "from")
        const target = yield* writable(to, "to")
        if (confined === undefined) return yield* mapHost(source)(host.rename(abs(source), abs(target)))
        const sourceEntry = yield* entryOf(source, from, "from")
        const targetEntry = yield* entryOf(target, to, "to")
        yield* mapHost(source)(confined.rename(root, sourceEntry, targetEntry))
      }),
    chmod: (path, mode) =>
      Effect.gen(function* () {
        const { rel, real } = yield* resolveBoth(path, "path")
        yield* assertWritable(rel)
        if (real !== rel) yield* assertWritable(real)
        yield* mapHost(rel)(confined === undefined ? host.chmod(abs(rel), mode) : confined.chmod(root, real, mode))
      })
  }
}
