/** The Workspace conformance suite against the memory host and the Node host (Deno runs it under `deno test`). */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { describe, it } from "vitest"
import { nodeHostFs } from "../../adapters/node/NodeHostFs.ts"
import { nodeProcesses } from "../../adapters/node/NodeProcesses.ts"
import { nodeSearchLayer } from "../../adapters/node/NodeSearch.ts"
import { type HostFixture, memory, servicesSuite, suite } from "./workspaceConformance.ts"

const node: HostFixture = {
  runtime: "node",
  make: async () => {
    const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "aw-conf-")))
    await fs.mkdir(path.join(base, "root"))
    await fs.mkdir(path.join(base, "outside"))
    return {
      host: nodeHostFs,
      root: path.join(base, "root"),
      outside: path.join(base, "outside"),
      symlink: (target, at) => fs.symlink(target, at),
      dispose: () => fs.rm(base, { recursive: true, force: true })
    }
  },
  processes: nodeProcesses,
  search: nodeSearchLayer,
  script: (code) => [process.execPath, "-e", code]
}

for (const fixture of [memory, node]) {
  describe(`Workspace conformance (${fixture.runtime})`, () => {
    for (const testCase of suite(fixture.runtime, fixture)) it(testCase.name, testCase.run)
  })
  describe(`Process and search conformance (${fixture.runtime})`, () => {
    for (const testCase of servicesSuite(fixture.runtime, fixture)) it(testCase.name, testCase.run, 60_000)
  })
}
