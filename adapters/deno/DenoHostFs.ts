/**
 * The HostFs port on Deno: `Deno.*` file APIs. Atomic replace is temp file + fsync + rename (+ a
 * directory fsync); the inter-process lock is a `<file>.lock` directory created exclusively, refreshed
 * while held and taken over when stale: the same protocol as proper-lockfile on the Node host, so a
 * Node process and a Deno process on one workspace exclude each other. Huge files are streamed as on
 * Node: `scanFile` (one reused 1 MiB buffer), `readRange` (a seek and the page's reads) and an incremental
 * SHA-256 (node:crypto, which Deno provides) core hashes the scan with, so read and stat above 16 MiB never
 * hold the file.
 * `readSmall` (the read hot path) opens through node:fs with O_NONBLOCK, as the Node host does: `Deno.open`
 * has no flag for it, and a blocking open of a FIFO waits for a writer (see `readSmall` below).
 */
import { createHash } from "node:crypto"
import type * as fs from "node:fs"
import * as Effect from "effect/Effect"
import {
  type DirEntry,
  ERRNO_REASONS,
  type FileInfo,
  HostError,
  type HostErrorReason,
  type HostFsShape
} from "../../core/services/HostFs.ts"
import { installSha256Stream } from "../../core/gate/hash.ts"
import { randomHex } from "../../core/text/hex.ts"
import { makeReadSmall } from "../readSmall.ts"

// Files are hashed as core streams them (core/services/hostReads.ts): node:crypto's incremental SHA-256, as
// Deno's Node layer gives it (Web Crypto has no streaming digest).
installSha256Stream(() => {
  const hash = createHash("sha256")
  return { update: (chunk) => hash.update(chunk), digest: () => hash.digest("hex") }
})

/** Maps a Deno error to a HostError (by error class, then by errno code). */
export const toHostError =
  (target: string) =>
  (cause: unknown): HostError => {
    const reason: HostErrorReason =
      cause instanceof Deno.errors.NotFound
        ? "NotFound"
        : cause instanceof Deno.errors.AlreadyExists
          ? "AlreadyExists"
          : cause instanceof Deno.errors.NotADirectory
            ? "NotDirectory"
            : cause instanceof Deno.errors.IsADirectory
              ? "IsDirectory"
              : cause instanceof Deno.errors.PermissionDenied
                ? "PermissionDenied"
                : cause instanceof Deno.errors.Busy
                  ? "Busy"
                  : (ERRNO_REASONS[(cause as { code?: string } | undefined)?.code ?? ""] ?? "Other")
    return new HostError({ reason, path: target, message: cause instanceof Error ? cause.message : String(cause) })
  }

const attempt = <A>(target: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: toHostError(target) })

const typeOf = (info: { isFile: boolean; isDirectory: boolean; isSymlink: boolean }): FileInfo["type"] =>
  info.isSymlink ? "symlink" : info.isFile ? "file" : info.isDirectory ? "directory" : "other"

const infoOf = (info: Deno.FileInfo): FileInfo => ({
  type: typeOf(info),
  size: info.size,
  mode: (info.mode ?? 0) & 0o7777,
  mtimeMs: info.mtime?.getTime() ?? 0
})

const statWith = (fn: (path: string) => Promise<Deno.FileInfo>) => (abs: string) =>
  attempt(abs, () =>
    fn(abs).then(
      (info): FileInfo | undefined => infoOf(info),
      (error) => {
        if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) return undefined
        throw error
      }
    )
  )

const dirOf = (abs: string) => abs.slice(0, Math.max(abs.lastIndexOf("/"), 1))
const baseOf = (abs: string) => abs.slice(abs.lastIndexOf("/") + 1)

const randomSuffix = () => randomHex(6)

/** Fsyncs a directory so a rename in it survives a crash (best effort where the platform refuses). */
const syncDir = async (dir: string) => {
  let handle: Deno.FsFile | undefined
  try {
    handle = await Deno.open(dir, { read: true })
    await handle.sync()
  } catch {
    // Some platforms cannot open or fsync a directory; the rename is still atomic there.
  } finally {
    handle?.close()
  }
}

const writeAtomic = async (abs: string, bytes: Uint8Array, mode: number | undefined, durable = true) => {
  const temp = `${dirOf(abs)}/.${baseOf(abs)}.${randomSuffix()}.tmp`
  let existingMode: number | undefined
  try {
    existingMode = ((await Deno.stat(abs)).mode ?? undefined) as number | undefined
  } catch {
    existingMode = undefined
  }
  try {
    const file = await Deno.open(temp, { write: true, createNew: true, mode: mode ?? 0o644 })
    try {
      let written = 0
      while (written < bytes.length) written += await file.write(bytes.subarray(written))
      if (durable) await file.sync()
    } finally {
      file.close()
    }
    const wanted = mode ?? (existingMode === undefined ? undefined : existingMode & 0o7777)
    if (wanted !== undefined) await Deno.chmod(temp, wanted)
    await Deno.rename(temp, abs)
  } catch (error) {
    await Deno.remove(temp).catch(() => undefined)
    throw error
  }
  if (durable) await syncDir(dirOf(abs))
}

/** How long a lock holder may be silent before its lock counts as stale (a crashed process). */
const LOCK_STALE_MS = 10_000
/** How long to wait for a busy lock before failing with Busy. */
const LOCK_WAIT_MS = 60_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Takes `<abs>.lock` (a directory, created exclusively); returns its release. */
const acquireLock = async (abs: string): Promise<() => Promise<void>> => {
  const lock = `${abs}.lock`
  const started = Date.now()
  let delay = 5
  for (;;) {
    try {
      await Deno.mkdir(lock)
      break
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error
      const info = await Deno.stat(lock).catch(() => undefined)
      if (info !== undefined && Date.now() - (info.mtime?.getTime() ?? 0) > LOCK_STALE_MS) {
        // The holder stopped refreshing: it crashed. Take the lock over.
        await Deno.remove(lock, { recursive: true }).catch(() => undefined)
        continue
      }
      if (Date.now() - started > LOCK_WAIT_MS) {
        throw Object.assign(new Error(`the lock ${lock} stayed busy for ${LOCK_WAIT_MS} ms`), { code: "EBUSY" })
      }
      await sleep(delay + Math.random() * delay)
      delay = Math.min(delay * 1.2, 50)
    }
  }
  const refresh = setInterval(() => {
    const now = new Date()
    Deno.utime(lock, now, now).catch(() => undefined)
  }, LOCK_STALE_MS / 4)
  return async () => {
    clearInterval(refresh)
    await Deno.remove(lock, { recursive: true }).catch(() => undefined)
  }
}

/**
 * Streams a file through `visit` in 1 MiB chunks read into one reused buffer (the chunk is valid only
 * during the call), as the Node host does: a huge file costs one buffer, never its size.
 */
const scanFile = async (abs: string, visit: (chunk: Uint8Array) => void) => {
  const file = await Deno.open(abs, { read: true })
  try {
    const buffer = new Uint8Array(1024 * 1024)
    let size = 0
    for (;;) {
      const count = await file.read(buffer)
      if (count === null) return size
      if (count === 0) continue
      size += count
      visit(buffer.subarray(0, count))
    }
  } finally {
    file.close()
  }
}

/** At most `length` bytes at byte `position`: one seek and the reads of that page. */
const readRange = async (abs: string, position: number, length: number) => {
  const file = await Deno.open(abs, { read: true })
  try {
    await file.seek(position, Deno.SeekMode.Start)
    const bytes = new Uint8Array(length)
    let read = 0
    while (read < length) {
      const count = await file.read(bytes.subarray(read))
      if (count === null) break
      read += count
    }
    return bytes.subarray(0, read)
  } finally {
    file.close()
  }
}

const infoOfStats = (stats: fs.Stats): FileInfo => ({
  type: stats.isSymbolicLink() ? "symlink" : stats.isFile() ? "file" : stats.isDirectory() ? "directory" : "other",
  size: stats.size,
  mode: stats.mode & 0o7777,
  // Whole milliseconds, as Deno's own stat reports them (Deno's node:fs gives no fraction either).
  mtimeMs: Math.trunc(stats.mtimeMs)
})

/**
 * The read hot path, the Node host's own (adapters/readSmall.ts): one open, one fstat of that handle, and
 * for a regular file of at most `maxBytes` one read, hashed as it is read (SHA-256 through node:crypto).
 * The open goes through Deno's node:fs with O_RDONLY | O_NONBLOCK because `Deno.open` takes no
 * O_NONBLOCK: a blocking open of a FIFO (or of a path swapped to one after any stat) waits until a writer
 * appears, which would hang the call. Non-blocking, a FIFO opens at once, its fstat says "other" and
 * nothing is read; the fstat is of the handle itself, so there is no window for a swap to slip into.
 */
const readSmall = makeReadSmall(infoOfStats, (error) => {
  const code = (error as { code?: string }).code
  return code === "ENOENT" || code === "ENOTDIR" || error instanceof Deno.errors.NotFound
})

const readText = (path: string): string | undefined => {
  try {
    return Deno.readTextFileSync(path)
  } catch {
    return undefined
  }
}

/**
 * The same process identity as the Node host's (adapters/node/identity.ts): boot id and start time
 * from /proc on Linux, so a Node process and a Deno process judge each other's locks alike. Elsewhere
 * Deno can tell neither the start time nor (without a signal 0) liveness: "pid:<n>", judged alive.
 */
const processIdentity = (pid: number): string | undefined => {
  const stat = readText(`/proc/${pid}/stat`)
  if (stat === undefined) return Deno.build.os === "linux" ? undefined : `pid:${pid}`
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  if (fields[0] === "Z" || fields[0] === "X") return undefined
  return `${readText("/proc/sys/kernel/random/boot_id")?.trim() ?? "boot"}:${fields[19]}`
}

/** The Deno filesystem. */
export const denoHostFs: HostFsShape = {
  owner: { pid: Deno.pid, identity: processIdentity(Deno.pid) ?? `pid:${Deno.pid}` },
  ownerAlive: (owner) =>
    // Off Linux, Deno cannot tell whether a pid runs: a lock it cannot judge is never broken.
    Effect.sync(() => (Deno.build.os === "linux" ? processIdentity(owner.pid) === owner.identity : true)),
  readFile: (abs) => attempt(abs, () => Deno.readFile(abs)),
  scanFile: (abs, visit) => attempt(abs, () => scanFile(abs, visit)),
  readRange: (abs, position, length) => attempt(abs, () => readRange(abs, position, length)),
  readSmall: (abs, maxBytes) => attempt(abs, () => readSmall(abs, maxBytes)),
  writeFileAtomic: (abs, bytes, options) =>
    attempt(abs, () => writeAtomic(abs, bytes, options?.mode, options?.durable !== false)),
  appendFile: (abs, bytes) => attempt(abs, () => Deno.writeFile(abs, bytes, { append: true, create: true })),
  stat: statWith(Deno.stat),
  lstat: statWith(Deno.lstat),
  readDir: (abs) =>
    attempt(abs, async () => {
      const entries: Array<DirEntry> = []
      for await (const entry of Deno.readDir(abs)) entries.push({ name: entry.name, type: typeOf(entry) })
      return entries
    }),
  mkdir: (abs, options) => attempt(abs, () => Deno.mkdir(abs, { recursive: options?.recursive ?? false })),
  remove: (abs, options) =>
    attempt(abs, async () => {
      const info = await Deno.lstat(abs)
      await Deno.remove(abs, { recursive: info.isDirectory && options?.recursive === true })
    }),
  rename: (from, to) => attempt(from, () => Deno.rename(from, to)),
  chmod: (abs, mode) => attempt(abs, () => Deno.chmod(abs, mode)),
  realpath: (abs) => attempt(abs, () => Deno.realPath(abs)),
  withLock: (abs, effect) =>
    Effect.acquireUseRelease(
      attempt(abs, () => acquireLock(abs)),
      () => effect,
      (release) => Effect.promise(release)
    )
}
