/** Where a language server's packages are on this machine: the project's node_modules first, then the toolkit's. */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import type { LanguageId } from "../../../core/services/LanguageServers.ts"

/** The exact versions the toolkit is tested with (package.json peerDependencies; docs/CODE.md). */
export const PINNED = {
  "typescript-language-server": "6.0.2",
  typescript: "5.9.3",
  pyright: "1.1.414"
} as const

/** The V8 heap ceiling of every node process of a server (the language server and tsserver), in MiB. */
export const SERVER_HEAP_MB = 3072

export const toolkitRequire = createRequire(import.meta.url)

/** The folder of an installed package (the project's first, then the toolkit's), or undefined. */
export const packageDir = (name: string, root: string): string | undefined => {
  const local = path.join(root, "node_modules", name, "package.json")
  if (fs.existsSync(local)) return path.dirname(fs.realpathSync(local))
  for (const attempt of [`${name}/package.json`, name]) {
    try {
      const found = toolkitRequire.resolve(attempt)
      let dir = path.dirname(found)
      // Walk up from the entry to the folder whose package.json names the package.
      for (let depth = 0; depth < 6; depth++) {
        const manifest = path.join(dir, "package.json")
        if (fs.existsSync(manifest) && readManifest(manifest).name === name) return fs.realpathSync(dir)
        dir = path.dirname(dir)
      }
    } catch {
      // not resolvable this way
    }
  }
  return undefined
}

export const readManifest = (file: string): { name?: string; version?: string; bin?: unknown } => {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as { name?: string; version?: string; bin?: unknown }
  } catch {
    return {}
  }
}

/** The script a project's node_modules/.bin entry runs (a link to a JS file), when there is one. */
export const projectBin = (root: string, name: string): string | undefined => {
  const bin = path.join(root, "node_modules", ".bin", name)
  try {
    const real = fs.realpathSync(bin)
    return fs.statSync(real).isFile() ? real : undefined
  } catch {
    return undefined
  }
}

/** The package folder above a file (the nearest package.json). */
export const packageAbove = (file: string): string => {
  let dir = path.dirname(file)
  for (let depth = 0; depth < 8; depth++) {
    if (fs.existsSync(path.join(dir, "package.json"))) return dir
    dir = path.dirname(dir)
  }
  return path.dirname(file)
}

export const repair = (language: LanguageId) =>
  language === "typescript"
    ? `npm install -D typescript-language-server@${PINNED["typescript-language-server"]} typescript@${PINNED.typescript}`
    : `npm install -D pyright@${PINNED.pyright}`
