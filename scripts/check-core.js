#!/usr/bin/env node
// The host-free check of core/: no node: or host-package imports, no host globals. (deno check of core/
// runs beside it in `npm run check:core`; core/tsconfig.json compiles it with "types": [].)
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"

const root = new URL("../core/", import.meta.url).pathname
const FORBIDDEN_IMPORT =
  /from\s+["'](node:[^"']+|fs|path|os|child_process|crypto|worker_threads|undici|playwright-core|@effect\/platform-node[^"']*|@modelcontextprotocol\/[^"']+|@lmstudio\/[^"']+|proper-lockfile|write-file-atomic|zod)["']|import\(\s*["']node:/
const HOST_GLOBAL = /\b(Deno\.|process\.(env|cwd|argv|exit|platform|stdout|stderr)|require\(|Buffer\.|__dirname|__filename)/

const files = []
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path)
    else if (path.endsWith(".ts") && !path.endsWith(".test.ts")) files.push(path)
  }
}
walk(root)

const problems = []
for (const file of files) {
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, index) => {
      const code = line.replace(/\/\/.*$/, "")
      if (FORBIDDEN_IMPORT.test(code)) problems.push(`${relative(root, file)}:${index + 1}: host import: ${line.trim()}`)
      if (HOST_GLOBAL.test(code) && !/^\s*(\*|\/\*)/.test(line)) problems.push(`${relative(root, file)}:${index + 1}: host global: ${line.trim()}`)
    })
}
if (problems.length > 0) {
  console.error(`core/ must stay host-free (keep host code in adapters/):\n${problems.join("\n")}`)
  process.exit(1)
}
console.log(`core/ is host-free: ${files.length} files checked.`)
