// "Available only when web research is enabled": workspace_research is registered only with enableWebResearch on
// and a host that advertises the network capability; its annotations say it reaches the open world.
import { describe, expect, it } from "vitest"
import { makeRegistry } from "../../core/registry.ts"
import type { Capability } from "../../core/services/HostFs.ts"
import { defaultSettings } from "../../core/settings/settings.ts"
import { ALL_TOOLS } from "../../core/tools/index.ts"
import { loadTools } from "../../core/tools/Tool.ts"

// The lazy tools' actions and handlers (core/tools/Tool.ts lazyTool): these registries list without a runtime's start.
await loadTools(ALL_TOOLS)

const host = (capabilities: ReadonlyArray<Capability>) => ({
  root: "/virtual/root",
  runtime: "node" as const,
  platform: "linux",
  capabilities
})

describe("workspace_research registration", () => {
  it("registered with enableWebResearch on (default off) and a network-capable host, last of the reference's tools in tools/list", () => {
    const names = (settings: Partial<typeof defaultSettings>, capabilities: ReadonlyArray<Capability>) =>
      makeRegistry({ ...defaultSettings, ...settings }, host(capabilities))
        .list()
        .map((tool) => tool.name)
    expect(names({}, ["fs", "process", "network"])).not.toContain("workspace_research")
    // Last of the reference's tools; the Workspaces integration's four tools (issue 13) are listed after them.
    const workspaces = ["get_workspace_status", "read_workspace", "get_workspace_operation", "workspace_action"]
    expect(
      names({ enableWebResearch: true }, ["fs", "process", "network"])
        .filter((name) => !workspaces.includes(name))
        .at(-1)
    ).toBe("workspace_research")
    expect(names({ enableWebResearch: true }, ["fs"])).not.toContain("workspace_research")
  })

  it("its listing: the actions of the reference plus reopen, and openWorldHint true", () => {
    const listed = makeRegistry({ ...defaultSettings, enableWebResearch: true }, host(["network"]))
      .list()
      .find((tool) => tool.name === "workspace_research")!
    expect((listed.inputSchema.properties["action"] as { enum: Array<string> }).enum).toEqual([
      "search",
      "fetch",
      "start",
      "deep",
      "list",
      "show",
      "note",
      "archive",
      "reopen"
    ])
    expect(listed.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true })
  })
})
