/**
 * The `.agentic/` state: small JSON stores and files owned by the tools, written with atomic replace
 * under an inter-process lock, so a crash or a second process never loses or tears a record.
 *
 * @example
 *   const store = yield* StateStore
 *   const id = yield* store.update("approvals/state.json", ApprovalStateSchema, (state) =>
 *     Effect.succeed([newId, { ...state, records: [...] }]))
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { toolError, type ToolError } from "../protocol/errors.ts"
import { type DirEntry, HostError, HostFs, HostInfo } from "../services/HostFs.ts"
import { dirname, join, relativeTo } from "../services/paths.ts"

/** The folder every store lives in, relative to the workspace root. */
export const STATE_DIR = ".agentic"

/** `.agentic/.gitignore`, written on first use of `.agentic/` so the toolkit's state never enters git. */
export const STATE_GITIGNORE = ".gitignore"
/** Its content: ignore everything in `.agentic/` (the file itself included). */
export const STATE_GITIGNORE_TEXT = "*\n"

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The state store operations; `rel` is relative to `.agentic/`. */
export interface StateStoreShape {
  /** The workspace-relative path of a store file (".agentic/<rel>"), as envelopes show it. */
  readonly path: (rel: string) => string
  /** The absolute host path of a store file. */
  readonly abs: (rel: string) => string
  readonly readBytes: (rel: string) => Effect.Effect<Uint8Array | undefined, ToolError>
  readonly readText: (rel: string) => Effect.Effect<string | undefined, ToolError>
  /**
   * Reads and decodes one record: undefined when absent; a file that is not JSON, or does not decode
   * against `schema`, fails IO_ERROR naming the file and the repair (move it aside), never a cast.
   * Fields the schema does not name are kept (a newer writer's fields survive a read-modify-write).
   */
  readonly readJson: <A, I>(rel: string, schema: Schema.Schema<A, I, never>) => Effect.Effect<A | undefined, ToolError>
  /** Atomic replace, creating parent folders. */
  /** Atomic writes; `durable: false` skips the fsyncs (HostFs.writeFileAtomic) for records that are harmless to lose. */
  readonly writeBytes: (
    rel: string,
    bytes: Uint8Array,
    options?: { readonly durable?: boolean }
  ) => Effect.Effect<void, ToolError>
  readonly writeText: (
    rel: string,
    text: string,
    options?: { readonly durable?: boolean }
  ) => Effect.Effect<void, ToolError>
  readonly writeJson: (
    rel: string,
    value: unknown,
    options?: { readonly durable?: boolean }
  ) => Effect.Effect<void, ToolError>
  /**
   * Several atomic writes into one folder (a planned transaction's record, diff and review): the folder is
   * checked and made once, each file replaced through its directory handle (where the host has them: a
   * folder swapped for a symlink is still never written through), in the order given.
   */
  readonly writeTexts: (
    dir: string,
    files: ReadonlyArray<{ readonly name: string; readonly text: string }>,
    options?: { readonly durable?: boolean }
  ) => Effect.Effect<void, ToolError>
  readonly appendText: (rel: string, text: string) => Effect.Effect<void, ToolError>
  readonly remove: (rel: string, options?: { readonly recursive?: boolean }) => Effect.Effect<void, ToolError>
  /** Entries of a store folder; empty when it does not exist. */
  readonly list: (rel: string) => Effect.Effect<ReadonlyArray<DirEntry>, ToolError>
  readonly stat: (
    rel: string
  ) => Effect.Effect<{ readonly size: number; readonly mtimeMs: number } | undefined, ToolError>
  /** Runs `effect` under the inter-process lock of `rel`. */
  readonly locked: <A, E, R>(rel: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | ToolError, R>
  /**
   * A locked read-modify-write of one JSON file: `f` gets the current value (undefined when absent)
   * and returns the result and the next value, which replaces the file atomically.
   */
  readonly update: <S, I, B, E, R>(
    rel: string,
    schema: Schema.Schema<S, I, never>,
    f: (current: S | undefined) => Effect.Effect<readonly [B, S], E, R>
  ) => Effect.Effect<B, E | ToolError, R>
}

/** The state store service (every member: the kernel's own steps and a gated action's interpreter). */
export class StateStore extends Context.Tag("agentic-workspace/StateStore")<StateStore, StateStoreShape>() {
  static readonly layer = Layer.effect(
    StateStore,
    Effect.gen(function* () {
      const host = yield* HostFs
      const info = yield* HostInfo
      return makeStateStore(host, info.root)
    })
  )
}

/** The reading members of the store: what a handler that must not change anything may use. */
export const STATE_READ_MEMBERS = [
  "path",
  "abs",
  "readBytes",
  "readText",
  "readJson",
  "list",
  "stat",
  "locked"
] as const

/**
 * The store's reads (and `locked`, which serialises a read with the writers; the lock file is the kernel's
 * bookkeeping, never a record). An ungated `run` and a gated `load` get this, not StateStore.
 */
export type StateReadsShape = Pick<StateStoreShape, (typeof STATE_READ_MEMBERS)[number]>

/** The reading half of a store: the same functions, nothing else reachable. */
export const readingHalf = (store: StateStoreShape): StateReadsShape => ({
  path: store.path,
  abs: store.abs,
  readBytes: store.readBytes,
  readText: store.readText,
  readJson: store.readJson,
  list: store.list,
  stat: store.stat,
  locked: store.locked
})

/** The store's reads, derived from the StateStore the runtime built. */
export class StateReads extends Context.Tag("agentic-workspace/StateReads")<StateReads, StateReadsShape>() {
  static readonly layer = Layer.effect(StateReads, Effect.map(StateStore, readingHalf))
}

/**
 * A kernel-owned write: the calling tool's own `.agentic/` storage (the `probe` paths of its `storage`
 * entries: `notes` and `MEMORY.md` for workspace_notes, `tasks` for workspace_tasks, ...). The registry
 * provides it per call, confined to that tool's entries, so an ungated action may keep its own records
 * (a note, a board, a job's status) and nothing else: a path outside them fails PROTECTED_PATH, written
 * nowhere. docs/DEVELOPING.md lists every such write.
 */
export class OwnStore extends Context.Tag("agentic-workspace/OwnStore")<OwnStore, StateStoreShape>() {}

/**
 * Whether `rel` (relative to `.agentic/`) is one of `owned` or inside one; an entry ending in `*` is a plain
 * prefix (`artifacts/inspect.*` owns `artifacts/inspect.read/...`).
 */
export const isOwned = (owned: ReadonlyArray<string>, rel: string): boolean => {
  const clean = rel.replace(/^\.\/+/, "").replace(/\/+$/, "")
  if (clean.split("/").some((part) => part === ".." || part === ".")) return false
  return owned.some((own) =>
    own.endsWith("*") ? clean.startsWith(own.slice(0, -1)) : clean === own || clean.startsWith(`${own}/`)
  )
}

/** The store confined to `owned`: a write, lock or update elsewhere fails PROTECTED_PATH and changes nothing. */
export const confineStore = (store: StateStoreShape, tool: string, owned: ReadonlyArray<string>): StateStoreShape => {
  const check = (rel: string): Effect.Effect<void, ToolError> =>
    isOwned(owned, rel)
      ? Effect.void
      : Effect.fail(
          toolError(
            "PROTECTED_PATH",
            `${tool} may keep records only in its own storage (${owned.map((own) => `.agentic/${own}`).join(", ") || "none"}), not .agentic/${rel}; this is a defect of the tool, report it.`,
            { path: `.agentic/${rel}` }
          )
        )
  return {
    ...readingHalf(store),
    writeBytes: (rel, bytes, options) => Effect.zipRight(check(rel), store.writeBytes(rel, bytes, options)),
    writeText: (rel, text, options) => Effect.zipRight(check(rel), store.writeText(rel, text, options)),
    writeJson: (rel, value, options) => Effect.zipRight(check(rel), store.writeJson(rel, value, options)),
    writeTexts: (dir, files, options) =>
      Effect.zipRight(
        Effect.forEach(files, (file) => check(`${dir}/${file.name}`), { discard: true }),
        store.writeTexts(dir, files, options)
      ),
    appendText: (rel, text) => Effect.zipRight(check(rel), store.appendText(rel, text)),
    remove: (rel, options) => Effect.zipRight(check(rel), store.remove(rel, options)),
    update: (rel, schema, f) => Effect.zipRight(check(rel), store.update(rel, schema, f))
  }
}

const io = (rel: string) => (error: HostError) =>
  toolError("IO_ERROR", `The state file .agentic/${rel} could not be accessed (${error.reason}).`, {
    path: `.agentic/${rel}`
  })

// A workspace may arrive with .agentic/ (or a folder in it) as a symlink, e.g. from a cloned repository:
// the store must never read or write through it to a place outside .agentic/ of this workspace.
const escaped = (rel: string) =>
  toolError(
    "PATH_ESCAPE",
    `The state path .agentic/${rel} leads outside this workspace's .agentic/ folder through a symlink; the user must remove that link before the toolkit can use its state.`,
    { path: `.agentic/${rel}` }
  )

/** One record decoded from a store file's text: IO_ERROR naming the file and the repair when it is not JSON or not valid. */
const decodeRecord = <A, I>(
  rel: string,
  text: string,
  schema: Schema.Schema<A, I, never>
): Effect.Effect<A, ToolError> => {
  const parsed = Either.try(() => JSON.parse(text) as unknown)
  if (Either.isLeft(parsed)) {
    return Effect.fail(
      toolError(
        "IO_ERROR",
        `The state file .agentic/${rel} is not valid JSON; move it aside to start that store afresh.`,
        {
          path: `.agentic/${rel}`
        }
      )
    )
  }
  return Schema.decodeUnknown(schema, { onExcessProperty: "preserve" })(parsed.right).pipe(
    Effect.mapError((error) =>
      toolError(
        "IO_ERROR",
        `The state file .agentic/${rel} does not hold a valid record (${ParseResult.ArrayFormatter.formatErrorSync(
          error
        )
          .slice(0, 3)
          .map((issue) => `${issue.path.join(".") || "the record"}: ${issue.message}`)
          .join("; ")}); move it aside to start that store afresh.`,
        { path: `.agentic/${rel}` }
      )
    )
  )
}

type Host = typeof HostFs.Service

/** How the store reaches its files: each path checked against symlinks out of .agentic/, then the host's calls. */
const accessOf = (host: Host, root: string) => {
  const base = join(root, STATE_DIR)
  const abs = (rel: string) => join(base, rel)
  const confined = (rel: string): Effect.Effect<void, ToolError> =>
    Effect.gen(function* () {
      let current = rel
      for (;;) {
        const target = current === "" ? base : abs(current)
        const info = yield* Effect.orElseSucceed(host.lstat(target), () => undefined)
        if (info !== undefined) {
          const real = yield* Effect.either(host.realpath(target))
          if (Either.isLeft(real) || relativeTo(base, real.right) === undefined) return yield* Effect.fail(escaped(rel))
          return
        }
        if (current === "") return
        current = dirname(current)
      }
    })
  const guard = <A, E, R>(rel: string, effect: Effect.Effect<A, E, R>) => Effect.zipRight(confined(rel), effect)
  // Writes, appends and removes go through the host's directory handles where it has them (issue 10 §1):
  // `.agentic/` and each folder in it are opened without following a link, so a folder swapped for a
  // symlink after the check above is never written through (PATH_ESCAPE). Elsewhere, the checked path.
  const handles = host.confined
  const inRoot = (rel: string) => (rel === "" ? STATE_DIR : `${STATE_DIR}/${rel}`)
  const hostError = (rel: string) => (error: HostError) => (error.reason === "Escape" ? escaped(rel) : io(rel)(error))
  const makeParent = (rel: string) =>
    handles === undefined
      ? host.mkdir(dirname(abs(rel)), { recursive: true })
      : handles.mkdir(root, dirname(inRoot(rel)), { recursive: true })
  const replaceFile = (rel: string, bytes: Uint8Array, options?: { readonly durable: false }) =>
    handles === undefined
      ? host.writeFileAtomic(abs(rel), bytes, options)
      : handles.writeFileAtomic(root, inRoot(rel), bytes, options)
  const writeFilesAtomic = handles?.writeFilesAtomic
  const writeAll =
    writeFilesAtomic === undefined
      ? undefined
      : (
          dir: string,
          files: ReadonlyArray<{ readonly name: string; readonly bytes: Uint8Array }>,
          options?: { readonly durable: false }
        ) => writeFilesAtomic(root, inRoot(dir), files, options)
  const appendTo = (rel: string, bytes: Uint8Array) =>
    handles === undefined ? host.appendFile(abs(rel), bytes) : handles.appendFile(root, inRoot(rel), bytes)
  const removeAt = (rel: string, options?: { readonly recursive?: boolean }) =>
    handles === undefined ? host.remove(abs(rel), options) : handles.remove(root, inRoot(rel), options)
  const readFrom = (rel: string) =>
    handles?.readFile === undefined ? host.readFile(abs(rel)) : handles.readFile(root, inRoot(rel))
  const withLockAt = <A, E, R>(rel: string, effect: Effect.Effect<A, E, R>) =>
    handles === undefined ? host.withLock(abs(rel), effect) : handles.withLock(root, inRoot(rel), effect)
  return {
    abs,
    guard,
    hasHandles: handles !== undefined,
    hostError,
    makeParent,
    replaceFile,
    writeAll,
    appendTo,
    removeAt,
    readFrom,
    withLockAt
  }
}

type Access = ReturnType<typeof accessOf>

/**
 * First use of .agentic/ (the first file written or appended; a lock alone leaves no file): make sure git
 * ignores it. Checked once per store; a .gitignore the user wrote themselves is left as it is.
 */
const ensureIgnoredOnce = (host: Host, { abs, guard, hostError, makeParent, replaceFile }: Access) => {
  let ignored = false
  const ensureIgnored: Effect.Effect<void, ToolError> = Effect.suspend(() => {
    if (ignored) return Effect.void
    return Effect.gen(function* () {
      const target = abs(STATE_GITIGNORE)
      const present = yield* Effect.orElseSucceed(host.lstat(target), () => undefined)
      if (present === undefined) {
        yield* makeParent(STATE_GITIGNORE).pipe(
          Effect.zipRight(replaceFile(STATE_GITIGNORE, encoder.encode(STATE_GITIGNORE_TEXT))),
          Effect.mapError(hostError(STATE_GITIGNORE))
        )
      }
      ignored = true
    }).pipe((effect) => guard(STATE_GITIGNORE, effect))
  })
  return ensureIgnored
}

/** The store's reads: a missing file reads as undefined, a record is decoded against its schema. */
const storeReads = ({ guard, hostError, readFrom }: Access) => {
  const readBytes = (rel: string) =>
    guard(
      rel,
      readFrom(rel).pipe(
        Effect.map((bytes): Uint8Array | undefined => bytes),
        Effect.catchIf(
          (error) => error.reason === "NotFound",
          () => Effect.succeed(undefined)
        ),
        Effect.mapError(hostError(rel))
      )
    )
  const readText = (rel: string) =>
    Effect.map(readBytes(rel), (bytes) => (bytes === undefined ? undefined : decoder.decode(bytes)))
  const readJson = <A, I>(rel: string, schema: Schema.Schema<A, I, never>): Effect.Effect<A | undefined, ToolError> =>
    Effect.flatMap(readText(rel), (text) =>
      text === undefined ? Effect.succeed(undefined) : decodeRecord(rel, text, schema)
    )
  return { readBytes, readText, readJson }
}

/** The store's writes, each after the first-use .gitignore: atomic replaces (creating parent folders) and appends. */
const writesOf = (access: Access, ensureIgnored: Effect.Effect<void, ToolError>) => {
  const { guard, hostError, makeParent, replaceFile, appendTo } = access
  const writing = <A, E, R>(rel: string, effect: Effect.Effect<A, E, R>) =>
    Effect.zipRight(ensureIgnored, guard(rel, effect))
  const writeBytes = (rel: string, bytes: Uint8Array, options?: { readonly durable?: boolean }) =>
    writing(
      rel,
      makeParent(rel).pipe(
        Effect.zipRight(replaceFile(rel, bytes, options?.durable === false ? { durable: false } : undefined)),
        Effect.mapError(hostError(rel))
      )
    )
  const writeText = (rel: string, text: string, options?: { readonly durable?: boolean }) =>
    writeBytes(rel, encoder.encode(text), options)
  const writeJson = (rel: string, value: unknown, options?: { readonly durable?: boolean }) =>
    writeText(rel, `${JSON.stringify(value, null, 2)}\n`, options)
  const writeTexts = (
    dir: string,
    files: ReadonlyArray<{ readonly name: string; readonly text: string }>,
    options?: { readonly durable?: boolean }
  ) => {
    const durable = options?.durable === false ? { durable: false as const } : undefined
    const [first, ...rest] = files
    if (first === undefined) return Effect.void
    // Without directory handles each file is checked as writeBytes checks it.
    if (!access.hasHandles)
      return Effect.forEach(files, (file) => writeText(`${dir}/${file.name}`, file.text, options), { discard: true })
    // The folder checked once (as writeBytes checks its first file), then made and written through one walk.
    const all = access.writeAll
    if (all !== undefined)
      return writing(
        `${dir}/${first.name}`,
        all(
          dir,
          files.map((file) => ({ name: file.name, bytes: encoder.encode(file.text) })),
          durable
        ).pipe(Effect.mapError(hostError(`${dir}/${first.name}`)))
      )
    return Effect.zipRight(
      writeText(`${dir}/${first.name}`, first.text, options),
      Effect.forEach(
        rest,
        (file) =>
          replaceFile(`${dir}/${file.name}`, encoder.encode(file.text), durable).pipe(
            Effect.mapError(hostError(`${dir}/${file.name}`))
          ),
        { discard: true }
      )
    )
  }
  const appendText = (rel: string, text: string) =>
    writing(
      rel,
      makeParent(rel).pipe(Effect.zipRight(appendTo(rel, encoder.encode(text))), Effect.mapError(hostError(rel)))
    )
  return { writeBytes, writeText, writeJson, writeTexts, appendText }
}

/** Builds the store over a host filesystem and a workspace root. */
export const makeStateStore = (host: Host, root: string): StateStoreShape => {
  const access = accessOf(host, root)
  const { abs, guard, hostError, makeParent, removeAt, withLockAt } = access
  const reads = storeReads(access)
  const writes = writesOf(access, ensureIgnoredOnce(host, access))
  const { readJson } = reads
  const { writeJson } = writes
  const locked = <A, E, R>(rel: string, effect: Effect.Effect<A, E, R>) =>
    guard(rel, makeParent(rel).pipe(Effect.mapError(hostError(rel)))).pipe(
      Effect.zipRight(
        withLockAt(rel, effect).pipe(
          Effect.catchIf(
            (error): error is HostError => error instanceof HostError,
            (error) => Effect.fail(io(rel)(error))
          )
        )
      )
    ) as Effect.Effect<A, E | ToolError, R>
  return {
    path: (rel) => `${STATE_DIR}/${rel}`,
    abs,
    ...reads,
    ...writes,
    remove: (rel, options) =>
      guard(
        rel,
        removeAt(rel, options).pipe(
          Effect.catchIf(
            (error) => error.reason === "NotFound",
            () => Effect.void
          ),
          Effect.mapError(hostError(rel))
        )
      ),
    list: (rel) =>
      guard(
        rel,
        host.readDir(abs(rel)).pipe(
          Effect.catchIf(
            (error) => error.reason === "NotFound",
            () => Effect.succeed([] as ReadonlyArray<DirEntry>)
          ),
          Effect.mapError(io(rel))
        )
      ),
    stat: (rel) =>
      guard(
        rel,
        host.stat(abs(rel)).pipe(
          Effect.map((info) => (info === undefined ? undefined : { size: info.size, mtimeMs: info.mtimeMs })),
          Effect.mapError(io(rel))
        )
      ),
    locked,
    update: (rel, schema, f) =>
      locked(
        rel,
        Effect.gen(function* () {
          const current = yield* readJson(rel, schema)
          const [result, next] = yield* f(current)
          yield* writeJson(rel, next)
          return result
        })
      )
  }
}
