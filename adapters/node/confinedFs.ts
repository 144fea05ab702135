/**
 * Writes that a racing process cannot redirect (issue 10 §1), on Linux: every directory of a path is
 * opened segment by segment from the root with O_DIRECTORY | O_NOFOLLOW, each relative to the handle
 * of the one before (through `/proc/self/fd/<fd>/<name>`, which the kernel resolves from the open
 * directory itself, not by name again), and the create, write, fsync, rename and remove run relative to
 * the last held handle. A directory swapped for a symlink after the Workspace's check is then never
 * followed: opening it fails (ENOTDIR under O_NOFOLLOW), which is reported as the reason "Escape"; a
 * directory moved away while its handle is held still receives the write where it now is, inside the
 * root. A final name swapped for a symlink is replaced by the rename (rename never follows its target)
 * and never written through.
 *
 * Other hosts (macOS, Windows) have no fd-relative path in node:fs, so `nodeConfinedFs` is undefined
 * there and the Workspace falls back to checked absolute paths (the window between check and use that
 * remains is documented in docs/SECURITY.md).
 */
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as Effect from "effect/Effect"
import { type ConfinedFsShape, ERRNO_REASONS, HostError, type HostErrorReason } from "../../core/services/HostFs.ts"
import {
  atFd,
  DIRECTORY_FLAGS,
  Escaped,
  fsyncFd,
  segmentsOf,
  split,
  withDirectoryFd,
  writeAllAtomic,
  writeAtomic,
  writeTemp
} from "./directoryFd.ts"

/**
 * proper-lockfile (with graceful-fs, which patches node:fs as it loads, and signal-exit), loaded on the first
 * lock: a call that only reads (capabilities, a read) never evaluates it. NodeHostFs locks with it too.
 */
export const lockfile = () => import("proper-lockfile").then((module) => module.default)

// proper-lockfile reports a held lock as ELOCKED.
const REASONS: Record<string, HostErrorReason> = { ...ERRNO_REASONS, ELOCKED: "Busy" }

/**
 * Maps a Node error to a HostError naming `target` (this module's and NodeHostFs's). Made without the Schema's
 * check of its fields (typed here): a missing file is the common case (a .gitignore or a state probe that is
 * not there, on every list or capabilities call), and the check cost about as much as the rest of the error.
 */
export const toHostError =
  (target: string) =>
  (cause: unknown): HostError => {
    const code = (cause as { code?: string } | undefined)?.code ?? ""
    return new HostError(
      {
        reason: REASONS[code] ?? "Other",
        path: target,
        message: cause instanceof Error ? cause.message : String(cause)
      },
      true
    )
  }

/** The path of `name` inside the directory open as `handle`. */
const at = (handle: fsp.FileHandle, name: string) => `/proc/self/fd/${handle.fd}/${name}`

/** Opens `name` inside `parent` as a directory without following a link; a link (or a file) there fails. */
const openChild = async (parent: fsp.FileHandle, name: string, rel: string): Promise<fsp.FileHandle> => {
  try {
    return await fsp.open(at(parent, name), DIRECTORY_FLAGS)
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === "ENOTDIR" || code === "ELOOP") {
      const info = await fsp.lstat(at(parent, name)).catch(() => undefined)
      if (info?.isSymbolicLink() === true)
        throw new Escaped(`"${rel}" became a symlink while it was being written; nothing was written through it`)
    }
    throw error
  }
}

/**
 * Runs `use` with a handle on the directory `dirRel` (relative to the real `root`), opened segment by
 * segment without following links; with `create`, missing levels are made on the way.
 */
const withDirectory = async <A>(
  root: string,
  dirRel: string,
  use: (dir: fsp.FileHandle) => Promise<A>,
  create = false
): Promise<A> => {
  let current = await fsp.open(root, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY)
  try {
    const done: Array<string> = []
    for (const segment of segmentsOf(dirRel)) {
      if (segment === "..") throw new Escaped(`"${dirRel}" climbs out of its root`)
      done.push(segment)
      let next: fsp.FileHandle
      try {
        next = await openChild(current, segment, done.join("/"))
      } catch (error) {
        if (!create || (error as { code?: string }).code !== "ENOENT") throw error
        await fsp.mkdir(at(current, segment)).catch((made: { code?: string }) => {
          if (made.code !== "EEXIST") throw made
        })
        next = await openChild(current, segment, done.join("/"))
      }
      await current.close()
      current = next
    }
    return await use(current)
  } finally {
    await current.close().catch(() => undefined)
  }
}

const syncDir = (dir: fsp.FileHandle) => dir.sync().catch(() => undefined)

/** Reads `rel` through its directory's handle, the final name opened with O_NOFOLLOW (a symlink there is an escape). */
const readWhole = (root: string, rel: string) => {
  const { dir, name } = split(rel)
  return withDirectoryFd(root, dir, (handle) => {
    let file: number
    try {
      file = fs.openSync(atFd(handle, name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
    } catch (error) {
      if ((error as { code?: string }).code === "ELOOP")
        throw new Escaped(`"${rel}" became a symlink; nothing was read through it`)
      throw error
    }
    try {
      return new Uint8Array(fs.readFileSync(file))
    } finally {
      fs.closeSync(file)
    }
  })
}

/**
 * Writes `bytes` to the fresh name `temp` beside `rel` (never renamed here): created exclusively, without
 * following a link, with the existing file's mode (or `mode`), and fsynced. The commit stages every file
 * this way, concurrently, before it renames any of them (`rename` with `durable: false`, then `syncDir`).
 * A failure removes the temp.
 */
const stage = (root: string, rel: string, temp: string, bytes: Uint8Array, mode: number | undefined) => {
  const { dir, name } = split(rel)
  if (temp.includes("/") || temp === "" || temp === "." || temp === "..")
    throw new Escaped(`"${temp}" is not a plain file name`)
  return withDirectoryFd(root, dir, (handle) => writeTemp(handle, name, temp, bytes, mode, true))
}

const syncDirectory = (root: string, rel: string) => withDirectoryFd(root, rel, fsyncFd)

/** Appends to `rel` (creating it), opened relative to its directory's handle without following a final link. */
const append = (root: string, rel: string, bytes: Uint8Array) => {
  const { dir, name } = split(rel)
  return withDirectory(root, dir, async (handle) => {
    const file = await fsp
      .open(
        at(handle, name),
        fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW,
        0o666
      )
      .catch((error: { code?: string }) => {
        if (error.code === "ELOOP") throw new Escaped(`"${rel}" became a symlink; nothing was appended through it`)
        throw error
      })
    try {
      let written = 0
      while (written < bytes.byteLength) {
        const { bytesWritten } = await file.write(bytes, written, bytes.byteLength - written)
        written += bytesWritten
      }
    } finally {
      await file.close()
    }
  })
}

const mkdir = (root: string, rel: string, recursive: boolean) => {
  if (recursive) return withDirectoryFd(root, rel, () => undefined, true)
  const { dir, name } = split(rel)
  return withDirectory(root, dir, async (handle) => {
    await fsp.mkdir(at(handle, name))
    await syncDir(handle)
  })
}

const remove = (root: string, rel: string, recursive: boolean, missingOk: boolean) => {
  const { dir, name } = split(rel)
  return withDirectory(root, dir, async (handle) => {
    const target = at(handle, name)
    // missingOk: a final name that is absent in the held directory is done; a folder on the way that
    // is missing (moved for a moment) still fails NotFound.
    const info = await fsp.lstat(target).catch((error: { code?: string }) => {
      if (missingOk && error.code === "ENOENT") return undefined
      throw error
    })
    if (info === undefined) return
    if (info.isDirectory()) {
      // rm and rmdir remove a link in the tree, never what it points to.
      if (recursive) await fsp.rm(target, { recursive: true })
      else await fsp.rmdir(target)
    } else await fsp.unlink(target)
    await syncDir(handle)
  })
}

const rename = (root: string, fromRel: string, toRel: string, durable: boolean) => {
  const from = split(fromRel)
  const to = split(toRel)
  if (from.dir === to.dir) {
    // The commit's renames of staged temps: one walk, one rename, the directory fsynced later.
    return withDirectoryFd(root, from.dir, async (handle) => {
      fs.renameSync(atFd(handle, from.name), atFd(handle, to.name))
      if (durable) await fsyncFd(handle).catch(() => undefined)
    })
  }
  return withDirectory(root, from.dir, (source) =>
    withDirectory(root, to.dir, async (target) => {
      await fsp.rename(at(source, from.name), at(target, to.name))
      if (durable) {
        await syncDir(target)
        await syncDir(source)
      }
    })
  )
}

const chmod = (root: string, rel: string, mode: number) => {
  const { dir, name } = split(rel)
  return withDirectory(root, dir, async (handle) => {
    const file = await fsp
      .open(at(handle, name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
      .catch(async (error: { code?: string }) => {
        // O_NOFOLLOW on a symlink fails ELOOP: it was swapped in after the check.
        if (error.code === "ELOOP") throw new Escaped(`"${rel}" became a symlink; its mode was not changed`)
        throw error
      })
    try {
      await file.chmod(mode)
    } finally {
      await file.close()
    }
  })
}

/** As NodeHostFs's locks (the same lock directory `<file>.lock`, so both kinds of caller exclude each other). */
const LOCK_STALE_MS = 10_000

/**
 * Takes the inter-process lock of `rel`: its directory is opened without following links and held
 * open while the lock lives, and the lock directory is made, refreshed and removed through that
 * handle, so a folder swapped for a symlink never puts a lock (or its removal) outside the root.
 */
const lock = async (root: string, rel: string): Promise<() => Promise<void>> => {
  const { dir, name } = split(rel)
  let held: fsp.FileHandle | undefined
  let release: (() => Promise<void>) | undefined
  await withDirectory(root, dir, async (handle) => {
    // A folder that cannot be written (a read-only mount) fails at once instead of being retried.
    await fsp.access(at(handle, ""), fs.constants.W_OK)
    held = await fsp.open(at(handle, "."), DIRECTORY_FLAGS)
  })
  try {
    const unlock = await (await lockfile()).lock(at(held!, name), {
      realpath: false,
      stale: LOCK_STALE_MS,
      update: LOCK_STALE_MS / 4,
      retries: { retries: 2000, factor: 1.2, minTimeout: 5, maxTimeout: 50, randomize: true }
    })
    release = async () => {
      try {
        await unlock()
      } finally {
        await held!.close().catch(() => undefined)
      }
    }
    return release
  } finally {
    if (release === undefined) await held!.close().catch(() => undefined)
  }
}

const mapError =
  (rel: string) =>
  (cause: unknown): HostError => {
    if (cause instanceof Escaped) return new HostError({ reason: "Escape", path: rel, message: cause.message })
    return toHostError(rel)(cause)
  }

const run = <A>(rel: string, task: () => Promise<A>) => Effect.tryPromise({ try: task, catch: mapError(rel) })

/** Whether this process can address a file relative to an open directory (Linux with /proc mounted). */
const available = (): boolean => {
  if (process.platform !== "linux") return false
  try {
    const handle = fs.openSync("/", DIRECTORY_FLAGS)
    try {
      return fs.statSync(`/proc/self/fd/${handle}/`).isDirectory()
    } finally {
      fs.closeSync(handle)
    }
  } catch {
    return false
  }
}

/** The confined mutations of the Node host, or undefined where the host cannot address files by directory handle. */
export const nodeConfinedFs: ConfinedFsShape | undefined = available()
  ? {
      mechanism: "linux-proc-fd",
      writeFileAtomic: (root, rel, bytes, options) =>
        run(rel, () => writeAtomic(root, rel, bytes, options?.mode, options?.durable !== false)),
      writeFilesAtomic: (root, dir, files, options) =>
        run(dir === "" ? "." : dir, () => writeAllAtomic(root, dir, files, options?.durable !== false)),
      readFile: (root, rel) => run(rel, () => readWhole(root, rel)),
      appendFile: (root, rel, bytes) => run(rel, () => append(root, rel, bytes)),
      mkdir: (root, rel, options) => run(rel, () => mkdir(root, rel, options?.recursive ?? false)),
      remove: (root, rel, options) =>
        run(rel, () => remove(root, rel, options?.recursive ?? false, options?.missingOk ?? false)),
      rename: (root, from, to, options) => run(from, () => rename(root, from, to, options?.durable ?? true)),
      stage: (root, rel, temp, bytes, options) => run(rel, () => stage(root, rel, temp, bytes, options?.mode)),
      syncDirectory: (root, rel) => run(rel === "" ? "." : rel, () => syncDirectory(root, rel)),
      chmod: (root, rel, mode) => run(rel, () => chmod(root, rel, mode)),
      withLock: (root, rel, effect) =>
        Effect.acquireUseRelease(
          run(rel, () => lock(root, rel)),
          () => effect,
          (release) => Effect.promise(() => release().catch(() => undefined))
        )
    }
  : undefined
