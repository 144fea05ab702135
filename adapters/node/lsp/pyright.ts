/** pyright's specifics: where it is, how it starts, and the settings it asks the client for. */
import * as fs from "node:fs"
import * as path from "node:path"
import { failure, type Failed, type Resolved } from "./common.ts"
import { packageAbove, packageDir, projectBin, readManifest, repair } from "./packages.ts"

/** Finds pyright, or the failure that names the install that repairs it. */
export const resolvePyright = (root: string): Resolved | Failed => {
  const node = process.execPath
  const script =
    projectBin(root, "pyright-langserver") ??
    (() => {
      const dir = packageDir("pyright", root)
      return dir === undefined ? undefined : path.join(dir, "langserver.index.js")
    })()
  if (script === undefined || !fs.existsSync(script))
    return failure(
      "unavailable",
      `The Python language server (pyright) is not installed (found neither in the project's node_modules nor beside agentic-workspace). Install it: \`${repair("python")}\` (in the project, or where agentic-workspace is installed), or leave "python" out of the languageServers setting.`
    )
  const serverDir = packageAbove(script)
  return {
    argv: [node, script, "--stdio"],
    info: { name: "pyright", version: readManifest(path.join(serverDir, "package.json")).version ?? "unknown" },
    readable: [serverDir],
    initializationOptions: {},
    languageIdOf: () => "python"
  }
}

/** The answer to workspace/configuration: pyright checks the open files only, and finds the project's imports. */
export const pythonConfiguration = (raw: unknown) => {
  const params = raw as { items: ReadonlyArray<{ section?: string }> }
  return params.items.map((item) =>
    item.section === "python.analysis"
      ? { diagnosticMode: "openFilesOnly", autoSearchPaths: true, useLibraryCodeForTypes: true }
      : item.section === "python"
        ? {}
        : null
  )
}
