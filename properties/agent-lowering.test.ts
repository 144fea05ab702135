/**
 * Law: for random settings and run parameters, a run's effective permissions are never above its parent's:
 * its reach, the settings its tools see, and the gate of each call inside it.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { defaultSettings, type Settings } from "../core/settings/settings.ts"
import { innerGate, lowerSettings, reachOf } from "../core/tools/agent/lower.ts"
import { runs } from "./runs.ts"

const SEED = 20261201
const mode = fc.constantFrom(0 as const, 1 as const, 2 as const)
const maybe = fc.option(fc.boolean(), { nil: undefined })
const settingsArb = fc
  .record({
    permissionMode: mode,
    enableProcessExecution: fc.boolean(),
    allowAgentCommands: fc.boolean(),
    enableWebResearch: fc.boolean(),
    allowAgentWebResearch: fc.boolean(),
    allowDestructiveEdits: fc.boolean(),
    enableBrowser: fc.boolean(),
    enableVcsTools: fc.boolean(),
    allowPrivateNetwork: fc.boolean(),
    allowCommandNetwork: fc.boolean(),
    enableSubAgents: fc.boolean()
  })
  .map((picked): Settings => ({ ...defaultSettings, ...picked }))
const inputArb = fc.record({
  mode: fc.option(fc.constantFrom("coding" as const, "research" as const, "general" as const), { nil: undefined }),
  commit_edits: maybe,
  allow_commands: maybe,
  allow_web: maybe
})
const hostArb = fc.record({ process: fc.boolean(), network: fc.boolean() })

const BOOLEAN_KEYS = (Object.keys(defaultSettings) as Array<keyof Settings>).filter(
  (key) => typeof defaultSettings[key] === "boolean"
)

describe("a run's effective permissions are never above the parent's", () => {
  it("reach, lowered settings and the inner gate, for random settings and parameters", () => {
    fc.assert(
      fc.property(settingsArb, inputArb, hostArb, mode, fc.boolean(), (parent, input, host, hostMode, planApproved) => {
        const reach = reachOf(parent, input, host)
        // commit_edits: the mode's default, only lowered
        if (reach.commitEdits) expect(parent.permissionMode !== 0 && input.commit_edits !== false).toBe(true)
        if (reach.commands)
          expect(
            parent.enableProcessExecution && parent.allowAgentCommands && host.process && input.allow_commands !== false
          ).toBe(true)
        if (reach.web)
          expect(
            parent.enableWebResearch && parent.allowAgentWebResearch && host.network && input.allow_web !== false
          ).toBe(true)
        const lowered = lowerSettings(parent, reach)
        for (const key of BOOLEAN_KEYS) {
          // a boolean is a permission: lowered never turns one on that the parent has off
          if (lowered[key] === true) expect(parent[key], key).toBe(true)
        }
        for (const key of Object.keys(parent) as Array<keyof Settings>) {
          if (!BOOLEAN_KEYS.includes(key)) expect(lowered[key], key).toEqual(parent[key])
        }
        expect(lowered.enableSubAgents).toBe(false)
        // the gate inside a run runs a call only where the parent's gate, at the lower of the two modes, would
        const verdict = innerGate(parent.permissionMode, hostMode, planApproved)
        const low = Math.min(parent.permissionMode, hostMode)
        const parentWouldRun = parent.permissionMode === 0 ? true : low === 2 || (low === 1 && planApproved)
        expect(verdict._tag === "Run").toBe(parentWouldRun)
      }),
      { seed: SEED, numRuns: runs(2000) }
    )
  })
})
