/**
 * The reads every host used to implement on its own, derived once from the port's primitives
 * (`stat`, `readRange`, `scanFile`, `readFile`): the end of a log, a streamed pass over a huge file, and a
 * file's SHA-256 computed as it streams. A host implements only the primitives; these cost what the host's
 * own versions did (alternating rounds in the issue 28 note).
 *
 * @example
 *   const end = yield* tailFile(host, "/ws/.agentic/jobs/j/stdout.log", 8192)
 */
import * as Effect from "effect/Effect"
import { sha256Bytes, sha256Stream } from "../gate/hash.ts"
import type { HostError, HostReadsShape } from "./HostFs.ts"

/** A bounded read from the end of a file. */
export interface Tail {
  /** The last bytes of the file (at most the number asked for). */
  readonly bytes: Uint8Array
  /** The file's size when it was read. */
  readonly size: number
}

/** The chunk a streamed pass reads at a time (the hosts' reused buffer; one positioned read each without one). */
export const SCAN_CHUNK_BYTES = 1024 * 1024

/** A file gone between its stat and its read answers as if it had never been there. */
const missingIsUndefined = <A>(effect: Effect.Effect<A, HostError>): Effect.Effect<A | undefined, HostError> =>
  Effect.catchIf(
    effect,
    (error) => error.reason === "NotFound",
    () => Effect.succeed(undefined)
  )

/** At most `maxBytes` from the end of a file (a stat, then one positioned read), never the whole file; undefined when it does not exist. */
export const tailFile = (
  host: HostReadsShape,
  abs: string,
  maxBytes: number
): Effect.Effect<Tail | undefined, HostError> =>
  Effect.flatMap(host.stat(abs), (info) => {
    if (info === undefined) return Effect.succeed(undefined)
    const length = Math.min(info.size, maxBytes)
    return missingIsUndefined(
      Effect.map(host.readRange(abs, info.size - length, length), (bytes) => ({ bytes, size: info.size }))
    )
  })

/**
 * Streams a file through `visit`, never holding the whole file; answers the bytes read. A chunk is valid
 * only during the call. The host's own scanFile (one reused buffer) where it has one; else positioned reads
 * of SCAN_CHUNK_BYTES until a short one.
 */
export const scanFile = (
  host: HostReadsShape,
  abs: string,
  visit: (chunk: Uint8Array) => void
): Effect.Effect<number, HostError> => {
  if (host.scanFile !== undefined) return host.scanFile(abs, visit)
  const step = (position: number): Effect.Effect<number, HostError> =>
    Effect.flatMap(host.readRange(abs, position, SCAN_CHUNK_BYTES), (chunk) => {
      if (chunk.length > 0) visit(chunk)
      return chunk.length < SCAN_CHUNK_BYTES ? Effect.succeed(position + chunk.length) : step(position + chunk.length)
    })
  return Effect.suspend(() => step(0))
}

/**
 * SHA-256 (hex) of a file, streamed through the host's incremental hash when it installed one (else read
 * whole and hashed); undefined when it does not exist.
 */
export const sha256File = (host: HostReadsShape, abs: string): Effect.Effect<string | undefined, HostError> =>
  missingIsUndefined(
    Effect.suspend(() => {
      const hash = sha256Stream()
      if (hash === undefined) return Effect.flatMap(host.readFile(abs), sha256Bytes)
      return Effect.map(
        scanFile(host, abs, (chunk) => hash.update(chunk)),
        () => hash.digest()
      )
    })
  )
