/**
 * The read hot path both hosts share (Node's node:fs and Deno's node:fs layer): one open, non-blocking so a
 * FIFO (or a path swapped to one) opens at once instead of waiting for a writer, one fstat of that handle
 * (no window between a check and the open), and for a regular file of at most `maxBytes` one read, hashed
 * as it is read. Synchronous for files up to SYNC_READ_BYTES (each step is a syscall of microseconds, a
 * thread-pool trip costs far more on a busy machine); a larger file is read asynchronously.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import type { FileInfo } from "../core/services/HostFs.ts"

/** Files up to this size are read synchronously (a page-cache read of it takes microseconds). */
export const SYNC_READ_BYTES = 1024 * 1024

export type SmallRead = { info: FileInfo; bytes?: Uint8Array; sha256?: string }

/**
 * readSmall for a host: `infoOf` turns a Stats into the host's FileInfo (Deno reports whole milliseconds),
 * `isMissing` says which open errors mean "nothing there" (answered undefined).
 */
export const makeReadSmall =
  (infoOf: (stats: fs.Stats) => FileInfo, isMissing: (error: unknown) => boolean) =>
  async (abs: string, maxBytes: number): Promise<SmallRead | undefined> => {
    let fd: number
    try {
      fd = fs.openSync(abs, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
    } catch (error) {
      if (isMissing(error)) return undefined
      // A directory some platforms will not open for reading: described by stat.
      if ((error as { code?: string }).code === "EISDIR") return { info: infoOf(fs.statSync(abs)) }
      throw error
    }
    try {
      const stats = fs.fstatSync(fd)
      const described = infoOf(stats)
      if (!stats.isFile() || stats.size > maxBytes) return { info: described }
      const bytes = new Uint8Array(stats.size)
      let read = 0
      if (stats.size <= SYNC_READ_BYTES) {
        while (read < bytes.length) {
          const count = fs.readSync(fd, bytes, read, bytes.length - read, read)
          if (count === 0) break
          read += count
        }
      } else {
        while (read < bytes.length) {
          const count = await new Promise<number>((resolve, reject) =>
            fs.read(fd, bytes, read, bytes.length - read, read, (error, n) =>
              error === null ? resolve(n) : reject(error)
            )
          )
          if (count === 0) break
          read += count
        }
      }
      const content = bytes.subarray(0, read)
      return { info: described, bytes: content, sha256: createHash("sha256").update(content).digest("hex") }
    } finally {
      fs.closeSync(fd)
    }
  }
