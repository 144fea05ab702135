/** Deterministic JSON and SHA-256, for everything that is hashed, matched or bound to content. */
import * as Effect from "effect/Effect"
import { randomHex, toHex } from "../text/hex.ts"

/**
 * JSON with object keys sorted at every depth; `undefined` members are dropped as JSON.stringify does.
 * Two operations that differ only in key order serialise identically.
 */
export const stableStringify = (value: unknown): string => {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value)
    return text === undefined ? "null" : text
  }
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? "null" : stableStringify(item))).join(",")}]`
  const entries = Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${stableStringify((value as Record<string, unknown>)[key])}`)
  return `{${entries.join(",")}}`
}

/** A synchronous SHA-256 (lowercase hex) a host may install; see `installSha256`. */
export type Sha256Sync = (bytes: Uint8Array) => string

let installed: Sha256Sync | undefined

/**
 * Installs the host's synchronous SHA-256 (Node: node:crypto's createHash), used by every hash below.
 * Web Crypto's digest is asynchronous: each call is a thread-pool trip and a promise, about 70 µs idle
 * for a 100-byte input and far more on a busy machine, against 8 µs for createHash; a call hashes
 * several small things (a snapshot, an operation, an artifact). The function must be a pure SHA-256:
 * `spec/kernel/hash.test.ts` checks the installed one against Web Crypto. Without one, Web Crypto.
 */
export const installSha256 = (digest: Sha256Sync): void => {
  installed = digest
}

/** An incremental SHA-256 a host may install (see `installSha256Stream`): fed chunk by chunk, then digested once. */
export interface Sha256Stream {
  readonly update: (chunk: Uint8Array) => void
  /** Lowercase hex. */
  readonly digest: () => string
}

let installedStream: (() => Sha256Stream) | undefined

/**
 * Installs the host's incremental SHA-256 (Node and Deno: node:crypto's createHash), with which a file is
 * hashed as it is streamed (core/services/hostReads.ts), never held whole. Web Crypto has no incremental
 * digest: without one, a file is read whole and hashed by `sha256Bytes`.
 */
export const installSha256Stream = (make: () => Sha256Stream): void => {
  installedStream = make
}

/** The installed incremental SHA-256, if any. */
export const sha256Stream = (): Sha256Stream | undefined => installedStream?.()

/** SHA-256 of bytes as lowercase hex (the host's synchronous digest when installed, else Web Crypto). */
export const sha256Bytes = (bytes: Uint8Array): Effect.Effect<string> => {
  const digest = installed
  return digest !== undefined
    ? Effect.sync(() => digest(bytes))
    : Effect.promise(() => crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)).pipe(Effect.map(toHex))
}

/** SHA-256 of a string's UTF-8 bytes. */
export const sha256Text = (text: string): Effect.Effect<string> => sha256Bytes(new TextEncoder().encode(text))

/** The hash an approval is bound to: SHA-256 of the stable JSON of the normalised operation. */
export const hashOperation = (operation: unknown): Effect.Effect<string> => sha256Text(stableStringify(operation))

/** A fresh id such as `approval_3f9c2a71d0b84e65`. */
export const newId = (prefix: string): Effect.Effect<string> => Effect.sync(() => `${prefix}_${randomHex(8)}`)
