/** The Deno key file: created once (32 bytes, mode 0600), loaded again, and the same bytes the Node host reads. */
import * as Effect from "effect/Effect"
import { denoKeyFileOps } from "../../../adapters/deno/DenoKey.ts"
import { KEY_BYTES, loadOrCreateKey } from "../../../core/gate/key.ts"

const assert = (condition: boolean, message: string) => {
  if (!condition) throw new Error(message)
}

Deno.test("deno/key: the key file is created once with 32 random bytes, mode 0600, in a 0700 folder, and loaded again", async () => {
  const state = await Deno.realPath(await Deno.makeTempDir({ prefix: "aw-state-deno-" }))
  try {
    const file = `${state}/agentic-workspace/keys/abc.key`
    const results = await Promise.all([1, 2, 3, 4].map(() => Effect.runPromise(loadOrCreateKey(denoKeyFileOps, file))))
    const stored = await Deno.readFile(file)
    assert(stored.length === KEY_BYTES, `size ${stored.length}`)
    for (const bytes of results)
      assert(
        bytes.every((byte, index) => byte === stored[index]),
        "racing loads disagree"
      )
    assert(((await Deno.stat(file)).mode! & 0o777) === 0o600, "key mode")
    assert(((await Deno.stat(`${state}/agentic-workspace/keys`)).mode! & 0o777) === 0o700, "folder mode")
    const again = await Effect.runPromise(loadOrCreateKey(denoKeyFileOps, file))
    assert(
      again.every((byte, index) => byte === stored[index]),
      "second load differs"
    )
    const leftovers = [...Deno.readDirSync(`${state}/agentic-workspace/keys`)].filter((entry) =>
      entry.name.endsWith(".tmp")
    )
    assert(leftovers.length === 0, "temporary files left")
  } finally {
    await Deno.remove(state, { recursive: true })
  }
})
