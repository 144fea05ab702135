/** The workspace key on Deno: the key file outside the workspace, read or created with Deno's file APIs. */
import * as Effect from "effect/Effect"
import { type KeyEnv, KeyError, type KeyFileOps, WorkspaceKey } from "../../core/gate/key.ts"
import { randomHex } from "../../core/text/hex.ts"

const failure = (path: string, action: string) => (cause: unknown) =>
  new KeyError({
    path,
    message: `The workspace key ${path} could not be ${action} (${cause instanceof Error ? cause.name : String(cause)}). Make that folder writable, or set XDG_STATE_HOME to a private writable directory.`
  })

const suffix = () => randomHex(8)

/** Deno implementations of the key file operations. */
export const denoKeyFileOps: KeyFileOps = {
  read: (path) =>
    Effect.tryPromise({
      try: () =>
        Deno.readFile(path).then(
          (bytes): Uint8Array | undefined => bytes,
          (error) => {
            if (error instanceof Deno.errors.NotFound) return undefined
            throw error
          }
        ),
      catch: failure(path, "read")
    }),
  mkdirPrivate: (dir) =>
    Effect.tryPromise({ try: () => Deno.mkdir(dir, { recursive: true, mode: 0o700 }), catch: failure(dir, "created") }),
  publish: (path, bytes) =>
    Effect.tryPromise({
      try: async () => {
        // The same protocol as the Node host: write a private temporary file in full, then link it into place.
        const temp = `${path}.${suffix()}.tmp`
        const file = await Deno.open(temp, { write: true, createNew: true, mode: 0o600 })
        try {
          let written = 0
          while (written < bytes.length) written += await file.write(bytes.subarray(written))
          await file.sync()
        } finally {
          file.close()
        }
        try {
          await Deno.link(temp, path)
          return true
        } catch (error) {
          if (error instanceof Deno.errors.AlreadyExists) return false
          throw error
        } finally {
          await Deno.remove(temp).catch(() => undefined)
        }
      },
      catch: failure(path, "created")
    })
}

/** Where the key folder is for this process. */
export const denoKeyEnv = (): KeyEnv => ({ XDG_STATE_HOME: Deno.env.get("XDG_STATE_HOME"), HOME: Deno.env.get("HOME") })

/** The WorkspaceKey layer of the workspace at the real path `root`. */
export const denoWorkspaceKeyLayer = (root: string) => WorkspaceKey.layerFile(denoKeyFileOps, denoKeyEnv(), root)
