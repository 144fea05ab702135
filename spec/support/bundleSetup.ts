/**
 * Vitest global setup of the `slow` project: builds the bundle the specs start (spec/support/bundle.ts) once per
 * run, into a temporary folder laid out as an installed package, and names it in AW_SPEC_BUNDLE for every test
 * process (spec/support/bin.ts). In watch mode it is rebuilt before each rerun, so a spec never starts a stale
 * build. AW_SPEC_SOURCES=1 builds nothing: the specs then start the sources through tsx.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { TestProject } from "vitest/node"
import { BUNDLE_ENV } from "./bin.ts"
import { buildBundle } from "./bundle.ts"

const REPO = path.resolve(new URL("../..", import.meta.url).pathname)

export default async function setup(project: TestProject): Promise<() => void> {
  if (process.env["AW_SPEC_SOURCES"] === "1") return () => undefined
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bundle-")))
  const dir = path.join(root, "node_modules", "agentic-workspace")
  await buildBundle(REPO, dir)
  process.env[BUNDLE_ENV] = dir
  project.onTestsRerun(() => buildBundle(REPO, dir))
  return () => {
    delete process.env[BUNDLE_ENV]
    fs.rmSync(root, { recursive: true, force: true })
  }
}
