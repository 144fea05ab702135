/**
 * The per-workspace secret that authenticates approval records and commit journals. It lives outside the
 * workspace, at `${XDG_STATE_HOME:-$HOME/.local/state}/agentic-workspace/keys/<sha256 of the root's real
 * path>.key` (32 random bytes, mode 0600), so nothing stored inside the workspace selects or carries it: a
 * copied `.agentic/` brings no trust along, and a sandboxed command (which cannot see the key directory)
 * cannot sign. HMAC-SHA-256 through WebCrypto, the same on Node, Deno and the memory host.
 *
 * @example
 *   const key = yield* WorkspaceKey
 *   const mac = yield* key.sign(payload)
 *   const trusted = yield* key.verify(payload, mac)
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { toHex } from "../text/hex.ts"
import { type StateEnv, stateDir } from "./stateDir.ts"

/** The environment variables the key's location depends on. */
export type KeyEnv = StateEnv

/** The key length in bytes. */
export const KEY_BYTES = 32

/**
 * The folder that holds every workspace's key: `${XDG_STATE_HOME:-$HOME/.local/state}/agentic-workspace/keys`
 * (core/gate/stateDir.ts).
 */
export const keysDir = (env: KeyEnv): string => `${stateDir(env)}/keys`

/** The key file of one workspace, from the SHA-256 (hex) of its root's real path. */
export const keyPath = (env: KeyEnv, rootRealPathSha256: string): string => `${keysDir(env)}/${rootRealPathSha256}.key`

/** The key could not be loaded or created; the message names the file and the repair. */
export class KeyError extends Schema.TaggedError<KeyError>()("KeyError", {
  path: Schema.String,
  message: Schema.String
}) {}

/** Signing and verification with the workspace's key. */
export interface WorkspaceKeyShape {
  /** Lowercase hex HMAC-SHA-256 of the payload's UTF-8 bytes. */
  readonly sign: (payload: string) => Effect.Effect<string>
  /** True when `mac` is the payload's MAC under this key (compared in constant time). */
  readonly verify: (payload: string, mac: string) => Effect.Effect<boolean>
}

const encoder = new TextEncoder()

/**
 * Builds the signer over raw key bytes (which must be KEY_BYTES long). The WebCrypto key is imported on the
 * first signature, not here: a server that starts and never signs does not load WebCrypto (on Node its
 * first use costs tens of milliseconds of start-up, issue 19).
 */
export const makeWorkspaceKey = (bytes: Uint8Array): Effect.Effect<WorkspaceKeyShape> =>
  Effect.gen(function* () {
    if (bytes.length !== KEY_BYTES)
      return yield* Effect.die(new Error(`a workspace key is ${KEY_BYTES} bytes, got ${bytes.length}`))
    const held = bytes.slice()
    let imported: Promise<CryptoKey> | undefined
    const key = () => {
      imported ??= crypto.subtle.importKey(
        "raw",
        held as Uint8Array<ArrayBuffer>,
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"]
      )
      return imported
    }
    const sign = (payload: string) =>
      Effect.promise(async () => crypto.subtle.sign("HMAC", await key(), encoder.encode(payload))).pipe(
        Effect.map(toHex)
      )
    const verify = (payload: string, mac: string) =>
      Effect.map(sign(payload), (expected) => {
        if (typeof mac !== "string" || mac.length !== expected.length) return false
        let difference = 0
        for (let index = 0; index < expected.length; index++)
          difference |= expected.charCodeAt(index) ^ mac.charCodeAt(index)
        return difference === 0
      })
    return { sign, verify }
  })

/** Fresh random key bytes. */
export const randomKeyBytes = (): Uint8Array => {
  const bytes = new Uint8Array(KEY_BYTES)
  crypto.getRandomValues(bytes)
  return bytes
}

/**
 * The few file operations loading a key needs; each host implements them with its own APIs.
 * `publish` must create the file exclusively and atomically (a reader never sees it half written) and
 * returns false when a key already exists there (another process won the race: use that one).
 */
export interface KeyFileOps {
  /** The file's bytes, or undefined when it does not exist. */
  readonly read: (path: string) => Effect.Effect<Uint8Array | undefined, KeyError>
  /** Creates the folder and its missing parents, private to the user (mode 0700). */
  readonly mkdirPrivate: (dir: string) => Effect.Effect<void, KeyError>
  /** Creates `path` with `bytes`, mode 0600, exclusively; false when it already exists. */
  readonly publish: (path: string, bytes: Uint8Array) => Effect.Effect<boolean, KeyError>
}

/** Loads the key at `path`, creating it (32 random bytes, mode 0600) on first use. */
export const loadOrCreateKey = (ops: KeyFileOps, path: string): Effect.Effect<Uint8Array, KeyError> =>
  Effect.gen(function* () {
    const damaged = (length: number) =>
      new KeyError({
        path,
        message: `The workspace key ${path} holds ${length} bytes instead of ${KEY_BYTES}. Remove it to create a new one (every pending or approved record will then need the user's decision again).`
      })
    const existing = yield* ops.read(path)
    if (existing !== undefined)
      return existing.length === KEY_BYTES ? existing : yield* Effect.fail(damaged(existing.length))
    yield* ops.mkdirPrivate(path.slice(0, path.lastIndexOf("/")))
    const fresh = randomKeyBytes()
    if (yield* ops.publish(path, fresh)) return fresh
    const raced = yield* ops.read(path)
    if (raced === undefined)
      return yield* Effect.fail(
        new KeyError({ path, message: `The workspace key ${path} vanished while it was being created; start again.` })
      )
    return raced.length === KEY_BYTES ? raced : yield* Effect.fail(damaged(raced.length))
  })

/** The workspace key service. */
export class WorkspaceKey extends Context.Tag("agentic-workspace/WorkspaceKey")<WorkspaceKey, WorkspaceKeyShape>() {
  /** A key held in memory (the memory host; embedders that keep no state). Random unless bytes are given. */
  static readonly layerMemory = (bytes?: Uint8Array) =>
    Layer.effect(
      WorkspaceKey,
      Effect.suspend(() => makeWorkspaceKey(bytes ?? randomKeyBytes()))
    )

  /**
   * The key of the workspace whose root's real path is `root`, loaded or created through a host's file
   * operations. `sha256Hex` is the host's SHA-256 of a string's UTF-8 bytes, when it has a cheaper one than
   * WebCrypto (Node's node:crypto: WebCrypto is then not loaded at start).
   */
  static readonly layerFile = (ops: KeyFileOps, env: KeyEnv, root: string, sha256Hex?: (text: string) => string) =>
    Layer.effect(
      WorkspaceKey,
      Effect.gen(function* () {
        const digest =
          sha256Hex === undefined
            ? toHex(yield* Effect.promise(() => crypto.subtle.digest("SHA-256", encoder.encode(root))))
            : sha256Hex(root)
        const bytes = yield* loadOrCreateKey(ops, keyPath(env, digest))
        return yield* makeWorkspaceKey(bytes)
      })
    )
}
