/**
 * Issue 30 item 2 on Deno ("Node and Deno hosts both (Deno has processes)"): the Deno host starts the same
 * typescript-language-server, sandboxed, and answers a definition across files and a file's outline.
 */
import assert from "node:assert/strict"
import { openDenoWorkspace } from "../../../adapters/deno/host.ts"

Deno.test("deno/code: workspace_inspect definition and symbols are answered by typescript-language-server on the Deno host", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "aw-deno-code-" }))
  try {
    await Deno.mkdir(`${root}/src`)
    await Deno.writeTextFile(`${root}/tsconfig.json`, JSON.stringify({ compilerOptions: { strict: true } }))
    await Deno.writeTextFile(`${root}/src/util.ts`, "export function double(x: number): number {\n  return x * 2\n}\n")
    await Deno.writeTextFile(
      `${root}/src/main.ts`,
      'import { double } from "./util.ts"\nexport const four = double(2)\n'
    )
    const opened = await openDenoWorkspace(root, {})
    assert.ok(!("_tag" in opened))
    const runtime = opened as Exclude<typeof opened, { _tag: "OpenFailure" }>
    try {
      const found = await runtime.call("workspace_inspect", {
        action: "definition",
        path: "src/main.ts",
        line: 2,
        column: 21
      })
      assert.equal(found.ok, true, found.summary)
      const text = JSON.stringify(found.data)
      assert.match(text, /src\/util\.ts/)
      assert.match(text, /typescript-language-server/)
      const outline = await runtime.call("workspace_inspect", { action: "symbols", path: "src/util.ts" })
      assert.equal(outline.ok, true, outline.summary)
      assert.match(JSON.stringify(outline.data), /double/)
    } finally {
      await runtime.dispose()
    }
  } finally {
    await Deno.remove(root, { recursive: true })
  }
})
