/**
 * The narrow filesystem port the core reaches the host through. Paths are absolute; confinement to the
 * workspace root is the Workspace service's job, not the host's.
 *
 * @example
 *   const host = yield* HostFs
 *   const bytes = yield* host.readFile("/home/user/project/src/a.ts")
 */
import { membersOf } from "./members.ts"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** Why a host call failed, as far as the core needs to tell. */
export const HostErrorReason = Schema.Literal(
  "NotFound",
  "AlreadyExists",
  "NotDirectory",
  "IsDirectory",
  "NotEmpty",
  "PermissionDenied",
  "Busy",
  /** A directory of the path was (swapped for) a symlink when a confined write opened it: nothing was written through it. */
  "Escape",
  "Other"
)
export type HostErrorReason = typeof HostErrorReason.Type

/** POSIX errno codes and the reason each stands for; hosts that report errno codes map through this. */
export const ERRNO_REASONS: Readonly<Record<string, HostErrorReason>> = {
  ENOENT: "NotFound",
  EEXIST: "AlreadyExists",
  ENOTDIR: "NotDirectory",
  EISDIR: "IsDirectory",
  ENOTEMPTY: "NotEmpty",
  EACCES: "PermissionDenied",
  EPERM: "PermissionDenied",
  EBUSY: "Busy"
}

/** A failed host call: the reason, the path and the host's own message. */
export class HostError extends Schema.TaggedError<HostError>()("HostError", {
  reason: HostErrorReason,
  path: Schema.String,
  message: Schema.String
}) {}

/** What stat/lstat report. `type` is "symlink" only from lstat. */
export interface FileInfo {
  readonly type: "file" | "directory" | "symlink" | "other"
  readonly size: number
  readonly mode: number
  readonly mtimeMs: number
}

/** One directory entry. */
export interface DirEntry {
  readonly name: string
  readonly type: "file" | "directory" | "symlink" | "other"
}

/**
 * A running process as a lock names it: its pid and an identity a reused pid or a reboot does not
 * match (on Linux the boot id and the start time from /proc, the same token the job supervisor's
 * liveness check uses).
 */
export interface ProcessOwner {
  readonly pid: number
  readonly identity: string
}

/** Options of an atomic write. */
export interface WriteOptions {
  readonly mode?: number
  /** false: no fsync (default true). */
  readonly durable?: boolean
}

/**
 * Mutations confined to a real directory `root`: `rel` is relative to it, every directory on the way is
 * opened without following a link and the operation runs relative to the held directory handle, so a
 * directory or file swapped for a symlink after the caller's check is never followed (fails "Escape",
 * or, for a final name, is replaced and not written through). Hosts that cannot address a file by
 * directory handle leave `HostFsShape.confined` undefined.
 */
export interface ConfinedFsShape {
  /** How the host holds directories (for capabilities and docs), e.g. "linux-proc-fd". */
  readonly mechanism: string
  readonly writeFileAtomic: (
    root: string,
    rel: string,
    bytes: Uint8Array,
    options?: WriteOptions
  ) => Effect.Effect<void, HostError>
  /**
   * `writeFileAtomic` of each file (a plain name) into the folder `dir`, in the order given, the folder and
   * its missing parents made first (as `mkdir` recursive): one walk to the folder for all of them. Optional:
   * a host without it gets the mkdir and one writeFileAtomic per file.
   */
  readonly writeFilesAtomic?: (
    root: string,
    dir: string,
    files: ReadonlyArray<{ readonly name: string; readonly bytes: Uint8Array }>,
    options?: WriteOptions
  ) => Effect.Effect<void, HostError>
  /**
   * Reads `rel` whole, the final name opened without following a link ("Escape" when it is one): a store
   * read must not follow a folder or file swapped for a symlink after the caller's check (issue 10 §1).
   * Optional: a host without it reads by the checked path.
   */
  readonly readFile?: (root: string, rel: string) => Effect.Effect<Uint8Array, HostError>
  /** Appends to `rel` (creating it); a final name swapped for a symlink is not followed ("Escape"). */
  readonly appendFile: (root: string, rel: string, bytes: Uint8Array) => Effect.Effect<void, HostError>
  readonly mkdir: (
    root: string,
    rel: string,
    options?: { readonly recursive?: boolean }
  ) => Effect.Effect<void, HostError>
  /** `missingOk`: an absent final name is done (a missing folder on the way still fails NotFound). */
  readonly remove: (
    root: string,
    rel: string,
    options?: { readonly recursive?: boolean; readonly missingOk?: boolean }
  ) => Effect.Effect<void, HostError>
  /** Renames (never following either name); `durable: false` leaves the directory fsync to a later `syncDirectory`. */
  readonly rename: (
    root: string,
    from: string,
    to: string,
    options?: { readonly durable?: boolean }
  ) => Effect.Effect<void, HostError>
  /**
   * Writes `bytes` to the fresh file `temp` (a plain name) in the directory of `rel`, created exclusively
   * with `rel`'s mode (or `mode`) and fsynced, without renaming it: the commit's staging step.
   */
  readonly stage: (
    root: string,
    rel: string,
    temp: string,
    bytes: Uint8Array,
    options?: { readonly mode?: number }
  ) => Effect.Effect<void, HostError>
  /** Fsyncs the directory `rel` ("" is the root), making the renames in it durable. */
  readonly syncDirectory: (root: string, rel: string) => Effect.Effect<void, HostError>
  readonly chmod: (root: string, rel: string, mode: number) => Effect.Effect<void, HostError>
  /** As `HostFsShape.withLock` (the same lock), with the lock made and removed through the held directory. */
  readonly withLock: <A, E, R>(
    root: string,
    rel: string,
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | HostError, R>
}

/**
 * The host filesystem, narrowed to what the tools need: primitives; what can be derived from them is
 * derived in core (core/services/hostReads.ts), not asked of each host.
 */
export interface HostFsShape {
  /** This process, as the locks it takes name it. */
  readonly owner: ProcessOwner
  /**
   * Whether the process a lock names still runs: false when it is gone, a zombie or its pid was reused.
   * A host that cannot tell answers true (a lock it cannot judge is never broken).
   */
  readonly ownerAlive: (owner: ProcessOwner) => Effect.Effect<boolean>
  readonly readFile: (abs: string) => Effect.Effect<Uint8Array, HostError>
  /**
   * Streams a file through `visit` in chunks read into one reused buffer, never holding the whole file;
   * answers the bytes read. Optional: without it core streams by positioned reads (readRange), an open and
   * a fresh chunk each (4.7x to 12.7x the time of a reused buffer over 128 MiB on a loaded 2-core machine),
   * so a host that can reuse a buffer gives it; it is the one streaming member a host keeps.
   */
  readonly scanFile?:
    | ((abs: string, visit: (chunk: Uint8Array) => void) => Effect.Effect<number, HostError>)
    | undefined
  /**
   * Opens the path once (following symlinks, never blocking on a FIFO): its fstat, and its bytes when it is a
   * regular file of at most `maxBytes`; undefined when nothing is there. The read hot path (one open, one
   * fstat, one read). `sha256`, when the host gives it, is the SHA-256 (hex) of `bytes`, computed as they were
   * read. Optional: a host without it is asked stat then readFile.
   */
  readonly readSmall?:
    | ((
        abs: string,
        maxBytes: number
      ) => Effect.Effect<
        { readonly info: FileInfo; readonly bytes?: Uint8Array; readonly sha256?: string } | undefined,
        HostError
      >)
    | undefined
  /**
   * Reads at most `length` bytes at byte `position` (fewer at the end of the file). The end of a log and
   * (with scanFile, or from this alone) a file's streamed SHA-256 are derived from it and `stat` once, in
   * core/services/hostReads.ts.
   */
  readonly readRange: (abs: string, position: number, length: number) => Effect.Effect<Uint8Array, HostError>
  /**
   * Write temp beside the target, fsync, rename over it (and fsync the directory): a reader never sees a torn file.
   * `durable: false` skips both fsyncs: still never torn, but a crash may lose the write (records that are
   * harmless to lose, such as a planned transaction a commit re-verifies anyway).
   */
  readonly writeFileAtomic: (abs: string, bytes: Uint8Array, options?: WriteOptions) => Effect.Effect<void, HostError>
  /** Appends bytes (creating the file); used for logs, never for state. */
  readonly appendFile: (abs: string, bytes: Uint8Array) => Effect.Effect<void, HostError>
  /** Follows symlinks; undefined when nothing is there. */
  readonly stat: (abs: string) => Effect.Effect<FileInfo | undefined, HostError>
  /** Does not follow a final symlink; undefined when nothing is there. */
  readonly lstat: (abs: string) => Effect.Effect<FileInfo | undefined, HostError>
  /**
   * lstat of many paths in one step, each undefined where nothing is there or its lstat failed (a listing's
   * sizes). Optional: a host without it is asked lstat once per path.
   */
  readonly lstatMany?: ((abs: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<FileInfo | undefined>>) | undefined
  readonly readDir: (abs: string) => Effect.Effect<ReadonlyArray<DirEntry>, HostError>
  readonly mkdir: (abs: string, options?: { readonly recursive?: boolean }) => Effect.Effect<void, HostError>
  /** Removes a file, a symlink, or a directory (only empty unless recursive). */
  readonly remove: (abs: string, options?: { readonly recursive?: boolean }) => Effect.Effect<void, HostError>
  readonly rename: (from: string, to: string) => Effect.Effect<void, HostError>
  readonly chmod: (abs: string, mode: number) => Effect.Effect<void, HostError>
  readonly realpath: (abs: string) => Effect.Effect<string, HostError>
  /**
   * Runs `effect` holding an inter-process lock named by `abs` (a lock file or directory beside it).
   * Two processes on one workspace serialise here, so a read-modify-write of a store is never lost.
   */
  /** Writes through directory handles, where the host has them (see ConfinedFsShape). */
  readonly confined?: ConfinedFsShape | undefined
  readonly withLock: <A, E, R>(abs: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | HostError, R>
}

/** The host filesystem service (every member: the kernel's own steps and a gated action's interpreter). */
export class HostFs extends Context.Tag("agentic-workspace/HostFs")<HostFs, HostFsShape>() {}

/** The reading members of the host filesystem. */
export const HOST_READS = [
  "owner",
  "ownerAlive",
  "readFile",
  "scanFile",
  "readSmall",
  "readRange",
  "stat",
  "lstat",
  "lstatMany",
  "readDir",
  "realpath"
] as const
export type HostReadsShape = Pick<HostFsShape, (typeof HOST_READS)[number]>

/** The host filesystem's reads: what an ungated `run` and a gated `load` get instead of HostFs. */
export class HostReads extends Context.Tag("agentic-workspace/HostReads")<HostReads, HostReadsShape>() {
  /** The reading half of the host's filesystem: the same functions, nothing else reachable. */
  static readonly from = (fs: HostFsShape): HostReadsShape => membersOf(fs, HOST_READS)
}

/**
 * The services a host can provide beyond the filesystem, as a typed literal list: a host advertises
 * exactly the ones its layer provides (adapters/<host>/host.ts), and a tool lists those it `requires`.
 */
export const CAPABILITIES = ["fs", "process", "network", "browser"] as const
export type Capability = (typeof CAPABILITIES)[number]

/** What each capability is called in a refusal ("this host (deno) has no process service"). */
export const CAPABILITY_SERVICE: Readonly<Record<Capability, string>> = {
  fs: "filesystem",
  process: "process",
  network: "network",
  browser: "browser"
}

/** Facts about the host the core runs on. */
export interface HostInfoShape {
  /** The workspace root: an absolute, real (symlink-free) path. */
  readonly root: string
  readonly runtime: "node" | "deno" | "memory"
  /** "linux", "darwin", "win32", ... */
  readonly platform: string
  /** The services the host's layer provides; a tool that requires another is not listed. */
  readonly capabilities: ReadonlyArray<Capability>
}

/** The host facts service. */
export class HostInfo extends Context.Tag("agentic-workspace/HostInfo")<HostInfo, HostInfoShape>() {}
