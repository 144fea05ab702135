/** The HostFs port on Node: node:fs, write-file-atomic for atomic replace, proper-lockfile for inter-process locks. */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type { DirEntry, FileInfo, HostFsShape } from "../../core/services/HostFs.ts"
import { installSha256, installSha256Stream } from "../../core/gate/hash.ts"
import { makeReadSmall, SYNC_READ_BYTES } from "../readSmall.ts"
import { lockfile, nodeConfinedFs, toHostError } from "./confinedFs.ts"
import { processIdentity } from "./identity.ts"
import { defined } from "../../core/text/defined.ts"

// write-file-atomic loads on the first atomic write, as proper-lockfile on the first lock (confinedFs.ts): a
// call that only reads (capabilities, a read) never evaluates them.
const writeFileAtomic = () => import("write-file-atomic").then((module) => module.default)

// Every hash of the core on this host is node:crypto's, synchronous (core/gate/hash.ts says why).
installSha256((bytes) => createHash("sha256").update(bytes).digest("hex"))
installSha256Stream(() => {
  const hash = createHash("sha256")
  return { update: (chunk) => hash.update(chunk), digest: () => hash.digest("hex") }
})

export { toHostError }

const attempt = <A>(target: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: toHostError(target) })

const typeOf = (stats: fs.Stats | fs.Dirent): FileInfo["type"] =>
  stats.isSymbolicLink() ? "symlink" : stats.isFile() ? "file" : stats.isDirectory() ? "directory" : "other"

const dirEntryOf = (entry: fs.Dirent): DirEntry => ({ name: entry.name, type: typeOf(entry) })

const info = (stats: fs.Stats): FileInfo => ({
  type: typeOf(stats),
  size: stats.size,
  mode: stats.mode & 0o7777,
  mtimeMs: stats.mtimeMs
})

/**
 * stat and lstat run synchronously: a metadata call takes microseconds, while a trip through the libuv
 * thread pool costs far more on a busy machine; a missing path is an answer here, not an exception.
 */
const statInfo = (fn: typeof fs.statSync, abs: string): FileInfo | undefined => {
  try {
    const stats = fn(abs, { throwIfNoEntry: false })
    return stats === undefined ? undefined : info(stats)
  } catch (error) {
    // A file where a folder was expected: nothing is there.
    if ((error as { code?: string }).code === "ENOTDIR") return undefined
    throw error
  }
}

const statWith = (fn: typeof fs.statSync) => (abs: string) =>
  Effect.try({ try: () => statInfo(fn, abs), catch: toHostError(abs) })

/** Fsyncs a directory so a rename in it survives a crash (best effort where the platform refuses). */
const syncDir = async (dir: string) => {
  let handle: fsp.FileHandle | undefined
  try {
    handle = await fsp.open(dir, "r")
    await handle.sync()
  } catch {
    // Some platforms cannot open or fsync a directory; the rename is still atomic there.
  } finally {
    await handle?.close()
  }
}

/** How long a lock holder may be silent before its lock counts as stale (a crashed process). */
const LOCK_STALE_MS = 10_000

/**
 * Streams a file through `visit` in 1 MiB chunks read into one reused buffer (the chunk is valid only
 * during the call), so a huge file costs one buffer, not a stream's trail of chunks awaiting collection.
 */
const scanFile = async (abs: string, visit: (chunk: Uint8Array) => void) => {
  const handle = await fsp.open(abs, "r")
  try {
    const buffer = new Uint8Array(1024 * 1024)
    let size = 0
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
      if (bytesRead === 0) return size
      size += bytesRead
      visit(buffer.subarray(0, bytesRead))
    }
  } finally {
    await handle.close()
  }
}

/** The read hot path: one non-blocking open, one fstat of the handle, one read hashed as it is read. */
const readSmall = makeReadSmall(info, (error) => {
  const code = (error as { code?: string }).code
  return code === "ENOENT" || code === "ENOTDIR"
})

/**
 * A regular file of at most SYNC_READ_BYTES read whole synchronously (as readSmall); undefined for anything
 * else (a larger file, a FIFO or device: opened non-blocking, so nothing waits), which the caller reads as before.
 */
const readSmallWhole = (abs: string): Buffer | undefined => {
  const fd = fs.openSync(abs, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
  try {
    const stats = fs.fstatSync(fd)
    return stats.isFile() && stats.size <= SYNC_READ_BYTES ? fs.readFileSync(fd) : undefined
  } finally {
    fs.closeSync(fd)
  }
}

/** The size (st_size) up to which a directory is listed synchronously: a few blocks, some hundred names. */
const SYNC_LIST_BYTES = 16 * 1024

/**
 * The entries of a small directory, listed synchronously (the same scandir, sorted the same way, as the
 * asynchronous readdir): a listing of a few names costs microseconds, a trip through the libuv thread pool
 * far more on a busy machine (capabilities lists `.agentic/` on every call). Undefined for a larger
 * directory or on any error, which the asynchronous readdir then reports as before.
 */
const readSmallDir = (abs: string): Array<fs.Dirent> | undefined => {
  try {
    const stats = fs.statSync(abs, { throwIfNoEntry: false })
    if (stats === undefined || !stats.isDirectory() || stats.size > SYNC_LIST_BYTES) return undefined
    return fs.readdirSync(abs, { withFileTypes: true })
  } catch {
    return undefined
  }
}

/** One positioned read (looping until `length` bytes or the end of the file). */
const readRange = async (abs: string, position: number, length: number) => {
  const handle = await fsp.open(abs, "r")
  try {
    const bytes = new Uint8Array(length)
    let read = 0
    while (read < length) {
      const { bytesRead } = await handle.read(bytes, read, length - read, position + read)
      if (bytesRead === 0) break
      read += bytesRead
    }
    return bytes.subarray(0, read)
  } finally {
    await handle.close()
  }
}

export const nodeHostFs: HostFsShape = {
  owner: { pid: process.pid, identity: processIdentity(process.pid) ?? `pid:${process.pid}` },
  ownerAlive: (owner) => Effect.sync(() => processIdentity(owner.pid) === owner.identity),
  readFile: (abs) =>
    attempt(abs, async () => {
      const buffer = readSmallWhole(abs) ?? (await fsp.readFile(abs))
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    }),
  writeFileAtomic: (abs, bytes, options) =>
    attempt(abs, async () => {
      const durable = options?.durable !== false
      await (await writeFileAtomic())(abs, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
        fsync: durable,
        ...defined({ mode: options?.mode })
      })
      if (durable) await syncDir(path.dirname(abs))
    }),
  scanFile: (abs, visit) => attempt(abs, () => scanFile(abs, visit)),
  readRange: (abs, position, length) => attempt(abs, () => readRange(abs, position, length)),
  readSmall: (abs, maxBytes) => attempt(abs, () => readSmall(abs, maxBytes)),
  appendFile: (abs, bytes) => attempt(abs, () => fsp.appendFile(abs, bytes)),
  stat: statWith(fs.statSync),
  lstat: statWith(fs.lstatSync),
  lstatMany: (paths) =>
    Effect.sync(() =>
      paths.map((abs) => {
        try {
          return statInfo(fs.lstatSync, abs)
        } catch {
          return undefined
        }
      })
    ),
  // A small directory is listed synchronously (readSmallDir) and answered without a trip through a promise.
  readDir: (abs) =>
    Effect.suspend(() => {
      const small = readSmallDir(abs)
      return small === undefined
        ? attempt(abs, async () => (await fsp.readdir(abs, { withFileTypes: true })).map(dirEntryOf))
        : Effect.succeed(small.map(dirEntryOf))
    }),
  mkdir: (abs, options) =>
    attempt(abs, () => fsp.mkdir(abs, { recursive: options?.recursive ?? false }).then(() => undefined)),
  remove: (abs, options) =>
    attempt(abs, async () => {
      const stats = await fsp.lstat(abs)
      if (stats.isDirectory()) {
        if (options?.recursive === true) await fsp.rm(abs, { recursive: true })
        else await fsp.rmdir(abs)
      } else await fsp.unlink(abs)
    }),
  rename: (from, to) => attempt(from, () => fsp.rename(from, to)),
  chmod: (abs, mode) => attempt(abs, () => fsp.chmod(abs, mode)),
  // The native realpath(3), as fsp.realpath, synchronously (one syscall; see statWith).
  realpath: (abs) => Effect.try({ try: () => fs.realpathSync.native(abs), catch: toHostError(abs) }),
  confined: nodeConfinedFs,
  withLock: (abs, effect) =>
    Effect.acquireUseRelease(
      attempt(abs, async () => {
        // A folder that cannot be written (a read-only mount, as inside the command sandbox) fails at once
        // instead of being retried for the whole lock timeout.
        await fsp.access(path.dirname(abs), fs.constants.W_OK)
        return (await lockfile()).lock(abs, {
          realpath: false,
          stale: LOCK_STALE_MS,
          update: LOCK_STALE_MS / 4,
          retries: { retries: 2000, factor: 1.2, minTimeout: 5, maxTimeout: 50, randomize: true }
        })
      }),
      () => effect,
      (release) => Effect.promise(() => release().catch(() => undefined))
    )
}
