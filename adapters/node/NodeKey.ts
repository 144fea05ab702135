/** The workspace key on Node: the key file outside the workspace, read or created with node:fs. */
import { createHash, randomBytes } from "node:crypto"
import * as fsp from "node:fs/promises"
import * as os from "node:os"
import * as Effect from "effect/Effect"
import { type KeyEnv, KeyError, type KeyFileOps, WorkspaceKey } from "../../core/gate/key.ts"
import { makeDirs } from "./makeDirs.ts"

const failure = (path: string, action: string) => (cause: unknown) =>
  new KeyError({
    path,
    message: `The workspace key ${path} could not be ${action} (${(cause as { code?: string }).code ?? String(cause)}). Make that folder writable, or set XDG_STATE_HOME to a private writable directory.`
  })

/** node:fs implementations of the key file operations. */
export const nodeKeyFileOps: KeyFileOps = {
  read: (path) =>
    Effect.tryPromise({
      try: () =>
        fsp.readFile(path).then(
          (buffer): Uint8Array | undefined => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength),
          (error: { code?: string }) => {
            if (error.code === "ENOENT") return undefined
            throw error
          }
        ),
      catch: failure(path, "read")
    }),
  mkdirPrivate: (dir) =>
    Effect.tryPromise({
      // Not { recursive: true }: on Node 20 it spins for ever under /proc (adapters/node/makeDirs.ts).
      try: () => makeDirs(dir, 0o700),
      catch: failure(dir, "created")
    }),
  publish: (path, bytes) =>
    Effect.tryPromise({
      try: async () => {
        // Written in full under a private temporary name, then linked into place: link() fails if a key is
        // already there, so two processes racing to create one agree on the first, and no reader sees half a key.
        const temp = `${path}.${randomBytes(8).toString("hex")}.tmp`
        const handle = await fsp.open(temp, "wx", 0o600)
        try {
          await handle.writeFile(bytes)
          await handle.sync()
        } finally {
          await handle.close()
        }
        try {
          await fsp.link(temp, path)
          return true
        } catch (error) {
          if ((error as { code?: string }).code === "EEXIST") return false
          throw error
        } finally {
          await fsp.rm(temp, { force: true })
        }
      },
      catch: failure(path, "created")
    })
}

/** Where the key folder is for this process: XDG_STATE_HOME, else the home directory's .local/state. */
export const nodeKeyEnv = (): KeyEnv => ({
  XDG_STATE_HOME: process.env.XDG_STATE_HOME,
  HOME: process.env.HOME || os.homedir()
})

/** The WorkspaceKey layer of the workspace at the real path `root` (the key file's name hashed with node:crypto). */
export const nodeWorkspaceKeyLayer = (root: string) =>
  WorkspaceKey.layerFile(nodeKeyFileOps, nodeKeyEnv(), root, (text) =>
    createHash("sha256").update(text, "utf8").digest("hex")
  )
