/**
 * The synchronous half of the Node host's confined writes (confinedFs.ts): the walk from the root to a held
 * directory fd (each level opened with O_DIRECTORY | O_NOFOLLOW through `/proc/self/fd/<fd>/<name>`), and
 * the atomic replaces and in-place creations made relative to it. Split from confinedFs.ts for size only.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"

export const DIRECTORY_FLAGS = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW

export class Escaped extends Error {
  readonly code = "EAW_ESCAPE"
}

export const segmentsOf = (rel: string) => rel.split("/").filter((segment) => segment !== "" && segment !== ".")

/**
 * As `withDirectory`, with the directory walk done by synchronous open/close calls on fds: the walk is
 * a few metadata syscalls of microseconds each, and doing them synchronously spares each a trip through
 * the libuv thread pool, which on a busy machine costs far more than the call (the commit's staging and
 * renames are mostly such walks). `use` gets the directory's fd and may be asynchronous (an fsync).
 */
export const withDirectoryFd = async <A>(
  root: string,
  dirRel: string,
  use: (dir: number, made: boolean) => A | Promise<A>,
  create = false
): Promise<A> => {
  let current = fs.openSync(root, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY)
  // Whether this walk made the folder `use` gets (its last level): `use` learns it is empty but for what it writes.
  let made = false
  try {
    const done: Array<string> = []
    for (const segment of segmentsOf(dirRel)) {
      made = false
      if (segment === "..") throw new Escaped(`"${dirRel}" climbs out of its root`)
      done.push(segment)
      const openChildFd = () => {
        try {
          return fs.openSync(atFd(current, segment), DIRECTORY_FLAGS)
        } catch (error) {
          const code = (error as { code?: string }).code
          if (
            (code === "ENOTDIR" || code === "ELOOP") &&
            fs.lstatSync(atFd(current, segment), { throwIfNoEntry: false })?.isSymbolicLink() === true
          ) {
            throw new Escaped(
              `"${done.join("/")}" became a symlink while it was being written; nothing was written through it`
            )
          }
          throw error
        }
      }
      let next: number
      try {
        next = openChildFd()
      } catch (error) {
        // With `create`, a missing level is made on the way (as withDirectory does).
        if (!create || (error as { code?: string }).code !== "ENOENT") throw error
        try {
          fs.mkdirSync(atFd(current, segment))
          made = true
        } catch (error) {
          if ((error as { code?: string }).code !== "EEXIST") throw error
        }
        next = openChildFd()
      }
      fs.closeSync(current)
      current = next
    }
    return await use(current, made)
  } finally {
    try {
      fs.closeSync(current)
    } catch {}
  }
}

export const atFd = (fd: number, name: string) => `/proc/self/fd/${fd}/${name}`

export const fsyncFd = (fd: number) =>
  new Promise<void>((resolve, reject) => fs.fsync(fd, (error) => (error === null ? resolve() : reject(error))))

export const split = (rel: string) => {
  const segments = segmentsOf(rel)
  const name = segments.pop()
  if (name === undefined || name === "..") throw new Escaped(`"${rel}" names no file inside its root`)
  return { dir: segments.join("/"), name }
}

/**
 * Atomic replace of `rel` through its directory's handle: temp created exclusively without following a link,
 * written, fsynced (when durable), renamed over the name, directory fsynced (when durable). The walk, the
 * write and the rename are synchronous calls on fds (see withDirectoryFd); only the fsyncs go to the thread pool.
 */
export const writeAtomic = (root: string, rel: string, bytes: Uint8Array, mode: number | undefined, durable = true) => {
  const { dir, name } = split(rel)
  return withDirectoryFd(root, dir, (handle) => replaceIn(handle, name, bytes, mode, durable))
}

/** The atomic replace of `name` in the directory open as `handle` (writeAtomic's, after its walk). */
const replaceIn = async (
  handle: number,
  name: string,
  bytes: Uint8Array,
  mode: number | undefined,
  durable: boolean
) => {
  const temp = `.${name}.aw-${randomBytes(6).toString("hex")}.tmp`
  await writeTemp(handle, name, temp, bytes, mode, durable)
  try {
    fs.renameSync(atFd(handle, temp), atFd(handle, name))
  } catch (error) {
    removeQuietly(atFd(handle, temp))
    throw error
  }
  if (durable) await fsyncFd(handle).catch(() => undefined)
}

/**
 * writeAtomic of several files into one folder, in the order given, through one walk to the folder (made
 * level by level where missing, as a recursive mkdir makes it) instead of a walk per file and one more for
 * the mkdir: a planned transaction's diff, review and record. Each name must be a plain name.
 *
 * When the walk itself made the folder, every file but the last is created in place (O_CREAT | O_EXCL |
 * O_NOFOLLOW, written, fsynced when durable) instead of through a temp and a rename: the folder did not
 * exist a moment ago, so there is nothing to replace and no reader that looks for those files before the
 * last one (a transaction exists once its record, written last and atomically, does). A name someone
 * created there in between fails EEXIST rather than being replaced. The last file is always replaced
 * atomically.
 */
export const writeAllAtomic = (
  root: string,
  dir: string,
  files: ReadonlyArray<{ readonly name: string; readonly bytes: Uint8Array }>,
  durable: boolean
) => {
  for (const { name } of files)
    if (name.includes("/") || name === "" || name === "." || name === "..")
      throw new Escaped(`"${name}" is not a plain file name`)
  return withDirectoryFd(
    root,
    dir,
    async (handle, made) => {
      for (let index = 0; index < files.length; index++) {
        const file = files[index]!
        if (made && index < files.length - 1) await createIn(handle, file.name, file.bytes, durable)
        else await replaceIn(handle, file.name, file.bytes, undefined, durable)
      }
    },
    true
  )
}

/** A new file `name` in the directory open as `handle`, created exclusively without following a link, written whole (fsynced, with the directory, when durable). */
const createIn = async (handle: number, name: string, bytes: Uint8Array, durable: boolean) => {
  await writeNew(handle, name, bytes, undefined, durable)
  // As replaceIn: durable, the name is made durable before the next file is written.
  if (durable) await fsyncFd(handle).catch(() => undefined)
}

/**
 * The new file `name` in the directory open as `handle`: created exclusively (O_EXCL | O_CREAT | O_NOFOLLOW,
 * so never a name that exists or a link), written whole, given `mode` when one is set, fsynced when `durable`.
 * Writing a page-cache file is as quick as the walk, so only the fsync goes to the thread pool. A failure
 * removes the file.
 */
const writeNew = async (
  handle: number,
  name: string,
  bytes: Uint8Array,
  mode: number | undefined,
  durable: boolean
) => {
  const file = fs.openSync(
    atFd(handle, name),
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
    mode ?? 0o666
  )
  try {
    try {
      let written = 0
      while (written < bytes.byteLength) written += fs.writeSync(file, bytes, written, bytes.byteLength - written)
      if (mode !== undefined) fs.fchmodSync(file, mode)
      if (durable) await fsyncFd(file)
    } finally {
      fs.closeSync(file)
    }
  } catch (error) {
    removeQuietly(atFd(handle, name))
    throw error
  }
}

const removeQuietly = (target: string) => {
  try {
    fs.unlinkSync(target)
  } catch {}
}

/**
 * Writes `bytes` to the fresh name `temp` in the directory open as `handle`, beside `name` (writeNew: created
 * exclusively, the temp name is fresh and never a link), with the existing file's mode (or `mode`; a symlink
 * at `name` was swapped in and is replaced, not followed), and fsynced when `durable`. A failure removes the
 * temp.
 */
export const writeTemp = async (
  handle: number,
  name: string,
  temp: string,
  bytes: Uint8Array,
  mode: number | undefined,
  durable: boolean
) => {
  // An existing file keeps its mode (as write-file-atomic did).
  const existing = fs.lstatSync(atFd(handle, name), { throwIfNoEntry: false })
  await writeNew(
    handle,
    temp,
    bytes,
    mode ?? (existing?.isFile() === true ? existing.mode & 0o7777 : undefined),
    durable
  )
}
