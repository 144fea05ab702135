// "Available only when web research is enabled": workspace_research is registered only with enableWebResearch on
// and a host that advertises the network capability; its annotations say it reaches the open world.
import { describe, expect, it } from "vitest"
import { makeRegistry } from "../../core/registry.ts"
import type { Capability } from "../../core/services/HostFs.ts"
import { defaultSettings } from "../../core/settings/settings.ts"

const host = (capabilities: ReadonlyArray<Capability>) => ({ root: "/virtual/root", runtime: "node" as const, platform: "linux", capabilities })

describe("workspace_research registration", () => {
  it("registered with enableWebResearch on (default off) and a network-capable host, last in tools/list", () => {
    const names = (settings: Partial<typeof defaultSettings>, capabilities: ReadonlyArray<Capability>) =>
      makeRegistry({ ...defaultSettings, ...settings }, host(capabilities)).list().map((tool) => tool.name)
    expect(names({}, ["fs", "process", "network"])).not.toContain("workspace_research")
    expect(names({ enableWebResearch: true }, ["fs", "process", "network"]).at(-1)).toBe("workspace_research")
    expect(names({ enableWebResearch: true }, ["fs"])).not.toContain("workspace_research")
  })

  it("its listing: the actions of the reference plus reopen, and openWorldHint true", () => {
    const listed = makeRegistry({ ...defaultSettings, enableWebResearch: true }, host(["network"])).list().find((tool) => tool.name === "workspace_research")!
    expect((listed.inputSchema.properties["action"] as { enum: Array<string> }).enum).toEqual(["search", "fetch", "start", "deep", "list", "show", "note", "archive", "reopen"])
    expect(listed.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true })
  })
})
