// "Never above the parent": the lowering table over mode x commit_edits x allow_commands x allow_web x settings,
// each cell against the reference's sentences written out plainly.
import { describe, expect, it } from "vitest"
import { defaultSettings } from "../../core/settings/settings.ts"
import { innerGate, lowerSettings, nothingToGate, reachOf } from "../../core/tools/agent/lower.ts"

const bools = [undefined, true, false] as const

describe("the lowering table", () => {
  it("'commit_edits may only lower that default: false always wins, true cannot raise it'; commands and web as the Manual-mode rule says, in every cell", () => {
    let cells = 0
    for (const permissionMode of [0, 1, 2] as const)
      for (const mode of [undefined, "coding", "research", "general"] as const)
        for (const commit_edits of bools)
          for (const allow_commands of bools)
            for (const allow_web of bools)
              for (const enableProcessExecution of [true, false])
                for (const allowAgentCommands of [true, false])
                  for (const enableWebResearch of [true, false])
                    for (const allowAgentWebResearch of [true, false]) {
                      const settings = {
                        ...defaultSettings,
                        permissionMode,
                        enableProcessExecution,
                        allowAgentCommands,
                        enableWebResearch,
                        allowAgentWebResearch
                      }
                      const reach = reachOf(
                        settings,
                        { mode, commit_edits, allow_commands, allow_web },
                        { process: true, network: true }
                      )
                      // "Its default comes from the permission mode — Auto and an approved Plan: true; Manual: false"
                      const commitDefault = permissionMode !== 0
                      expect(reach.commitEdits).toBe(commit_edits === false ? false : commitDefault)
                      // "process execution and Allow agents to run commands are on and allow_commands is not false (research mode defaults to no commands)"
                      const commandsDefault = mode !== "research"
                      expect(reach.commands).toBe(
                        enableProcessExecution && allowAgentCommands && (allow_commands ?? commandsDefault)
                      )
                      // "Enable web research tools and Allow sub-agents to use web research are on and allow_web is not false"
                      expect(reach.web).toBe(enableWebResearch && allowAgentWebResearch && allow_web !== false)
                      // "A run that can do neither starts immediately."
                      expect(nothingToGate(reach)).toBe(!reach.commands && !reach.web)
                      const lowered = lowerSettings(settings, reach)
                      expect(lowered.enableProcessExecution).toBe(enableProcessExecution && reach.commands)
                      expect(lowered.enableWebResearch).toBe(enableWebResearch && reach.web)
                      expect(lowered.enableSubAgents).toBe(false)
                      expect(lowered.permissionMode).toBe(permissionMode)
                      cells++
                    }
    expect(cells).toBe(3 * 4 * 27 * 16)
  })

  it("a host without processes or a network lowers commands and web whatever the settings", () => {
    const all = {
      ...defaultSettings,
      permissionMode: 2 as const,
      allowAgentCommands: true,
      enableWebResearch: true,
      allowAgentWebResearch: true
    }
    expect(reachOf(all, {}, { process: false, network: false })).toEqual({
      commitEdits: true,
      commands: false,
      web: false
    })
  })

  it("'before each gated call it also reads the host's current permission mode and uses the lower of the two'", () => {
    expect(innerGate(2, 2, false)._tag).toBe("Run")
    expect(innerGate(2, 1, false)._tag).toBe("Refuse")
    expect(innerGate(2, 1, true)._tag).toBe("Run")
    expect(innerGate(2, 0, true)._tag).toBe("Refuse")
    expect(innerGate(1, 2, true)._tag).toBe("Run")
    expect(innerGate(1, 2, false)._tag).toBe("Refuse")
    // "In Manual mode the approved entry authorises the run's command and web calls"
    expect(innerGate(0, 0, false)._tag).toBe("Run")
    expect(innerGate(0, 2, false)._tag).toBe("Run")
  })
})
