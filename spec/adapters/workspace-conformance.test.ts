/** The Workspace conformance suite against the memory host and the Node host (Deno runs it under `deno test`). */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { describe, it } from "vitest"
import { makeMemoryHostFs } from "../../core/services/MemoryHostFs.ts"
import { nodeHostFs } from "../../adapters/node/NodeHostFs.ts"
import { type HostFixture, suite } from "./workspaceConformance.ts"

const memory: HostFixture = {
  runtime: "memory",
  make: async () => {
    const fs = makeMemoryHostFs(["/virtual/root", "/virtual/outside"])
    return {
      host: fs.host,
      root: "/virtual/root",
      outside: "/virtual/outside",
      symlink: async (target, at) => {
        const error = fs.symlink(target, at)
        if (error !== undefined) throw error
      },
      dispose: async () => undefined
    }
  }
}

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
  }
}

for (const fixture of [memory, node]) {
  describe(`Workspace conformance (${fixture.runtime})`, () => {
    for (const testCase of suite(fixture.runtime, fixture)) it(testCase.name, testCase.run)
  })
}
