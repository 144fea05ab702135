/**
 * Test only (spec/adapters/deno/read_small_test.ts): one host's HostFs.readSmall on each path, one JSON line
 * per path: `{ info, bytes (base64), sha256 }`, `{ absent: true }` or `{ error: reason }`. Runs under Deno
 * (`deno run -A`, the Deno host) or under Node (`node --import tsx`, the Node host), so the two hosts'
 * answers can be compared byte for byte. Arguments: host ("deno" | "node"), maxBytes, paths.
 */
import * as Effect from "effect/Effect"
import type { HostFsShape } from "../../../../core/services/HostFs.ts"

declare const Deno: { readonly args: ReadonlyArray<string> } | undefined
declare const process: { readonly argv: ReadonlyArray<string> }

const args = typeof Deno !== "undefined" ? Deno.args : process.argv.slice(2)
const [host, maxBytes, ...paths] = args
const hostFs: HostFsShape =
  host === "deno"
    ? (await import("../../../../adapters/deno/DenoHostFs.ts")).denoHostFs
    : (await import("../../../../adapters/node/NodeHostFs.ts")).nodeHostFs
const base64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join(""))
let out = ""
for (const path of paths) {
  const answer = await Effect.runPromise(Effect.either(hostFs.readSmall!(path, Number(maxBytes))))
  if (answer._tag === "Left") out += `${JSON.stringify({ error: answer.left.reason })}\n`
  else if (answer.right === undefined) out += `${JSON.stringify({ absent: true })}\n`
  else
    out += `${JSON.stringify({
      info: answer.right.info,
      ...(answer.right.bytes === undefined ? {} : { bytes: base64(answer.right.bytes) }),
      ...(answer.right.sha256 === undefined ? {} : { sha256: answer.right.sha256 })
    })}\n`
}
console.log(out.trimEnd())
