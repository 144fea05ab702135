/** workspace_research's action Schemas and handlers, loaded on the tool's first call or listing (tool.ts). */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { newId } from "../../gate/hash.ts"
import { NetState } from "../../net/NetState.ts"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { RegisteredTools } from "../../services/RegisteredTools.ts"
import type { Settings } from "../../settings/settings.ts"
import { OwnStore, StateReads } from "../../store/StateStore.ts"
import { envelopeChars, largestFitting, largestPartFitting } from "../fit.ts"
import { type ActionInput, gatedAction, type ToolParts, ungated } from "../Tool.ts"
import { awaitRun, interpretLaunch, type LaunchBefore, loadLaunch, specOf, statusView } from "../agent/launch.ts"
import type { RunState, StartInput } from "../agent/schema.ts"
import { changeProject, interpretFetch, interpretSearch, type SearchOutcome } from "./interpret.ts"
import { loadActiveProject, loadProject, loadProjects } from "./load.ts"
import { planFetch, planSearch, type SearchPlan } from "./plan.ts"
import { addNote, newProject, type Project, projectFile } from "./project.ts"
import { ACTIONS, DeepPlanSchema, FetchPlanSchema, SearchPlanSchema } from "./schema.ts"
import { fetchView } from "./fetchView.ts"
import { projectLine, projectView } from "./view.ts"
import { nowIso } from "../../text/time.ts"

const TOOL = "workspace_research"

type Actions = typeof ACTIONS

/** What a web action loads before planning: the settings, and the last untrusted read when stageEgressAfterUntrustedRead is on. */
interface WebBefore {
  readonly settings: Settings
  readonly untrustedRead: string | undefined
}

/** The before-state of a web call: research_id checked (exists, active), the settings, the last untrusted read. */
const loadWeb = (researchId: string | undefined) =>
  Effect.gen(function* () {
    if (researchId !== undefined) yield* loadActiveProject(researchId)
    const settings = yield* CurrentSettings
    const net = yield* NetState
    const untrustedRead = settings.stageEgressAfterUntrustedRead ? yield* net.lastUntrustedRead : undefined
    return { settings, untrustedRead } satisfies WebBefore
  })

/**
 * stageEgressAfterUntrustedRead: once web content has been read since the host started, the next web call is
 * confirmed by the user whatever the mode (Auto and an approved plan included).
 */
const confirmAfterRead = (_input: unknown, before: WebBefore) => before.untrustedRead !== undefined

const stagedBecause = (before: WebBefore) =>
  before.untrustedRead === undefined
    ? {}
    : { stagedBecause: { setting: "stageEgressAfterUntrustedRead", after: before.untrustedRead } }

const resumeOf = (input: Record<string, unknown>) => {
  const { action, ...args } = input
  return { tool: TOOL, arguments: { action, ...args } }
}

/** The staged shape search and fetch share: the bound plan, its working data, the prompt and the preview's data. */
const plannedWeb = <P extends { readonly bound: unknown; readonly title: string; readonly prompt: unknown }>(
  input: Record<string, unknown>,
  plan: P,
  before: WebBefore,
  data: Record<string, unknown>
) => ({
  _tag: "Planned" as const,
  plan: plan.bound as P["bound"],
  work: { plan, before },
  title: plan.title,
  prompt: plan.prompt as P["prompt"],
  resume: resumeOf(input),
  preview: { data: { ...data, ...stagedBecause(before) } }
})

/** What deep loads: the run it awaits (run_id), or the before-state of the research run it would start. */
type DeepBefore =
  | { readonly _tag: "Await"; readonly state: RunState }
  | { readonly _tag: "Start"; readonly launch: LaunchBefore; readonly input: StartInput }

/**
 * deep needs workspace_agent (enableSubAgents, and the tool registered); it is refused before gating
 * otherwise. With run_id it awaits that run (bounded): a read, nothing to gate. Without it, it plans a
 * research-mode run with commit_edits=false and allow_commands=false, which needs web reach for the run
 * (allowAgentWebResearch) to be worth starting.
 */
const loadDeep = (input: ActionInput<Actions, "deep">) =>
  Effect.gen(function* () {
    if (input.research_id !== undefined) yield* loadActiveProject(input.research_id)
    const settings = yield* CurrentSettings
    const tools = yield* RegisteredTools
    const agent = settings.enableSubAgents && tools.registered.some((tool) => tool.name === "workspace_agent")
    if (!agent) {
      return yield* Effect.fail(
        toolError(
          "AGENT_DISABLED",
          settings.enableSubAgents
            ? "deep needs workspace_agent, which this host does not register; use search and fetch with a research_id instead. Nothing was staged."
            : "deep needs durable sub-agents: the user must turn on enableSubAgents (Enable durable sub-agents). Use search and fetch with a research_id instead. Nothing was staged.",
          { setting: "enableSubAgents" }
        )
      )
    }
    if (input.run_id !== undefined)
      return {
        _tag: "Await",
        state: yield* awaitRun(input.run_id, settings.maxCommandDurationSeconds * 1000)
      } satisfies DeepBefore
    const start: StartInput = {
      objective: input.objective,
      mode: "research",
      commit_edits: false,
      allow_commands: false,
      ...(input.research_id === undefined ? {} : { research_project_id: input.research_id })
    }
    const launch = yield* loadLaunch(start)
    if (!launch.reach.web) {
      return yield* Effect.fail(
        toolError(
          "AGENT_DISABLED",
          "deep starts a research agent that reaches the web, and sub-agents may not: the user must turn on allowAgentWebResearch (Allow sub-agents to use web research). Use search and fetch with a research_id instead. Nothing was staged.",
          { setting: "allowAgentWebResearch" }
        )
      )
    }
    return { _tag: "Start", launch, input: start } satisfies DeepBefore
  })

/**
 * search's result with the first `shown` results: as many as keep the envelope as sent within
 * maxToolResultChars (envelopeChars measures it), the rest counted in resultsOmitted.
 */
/** archive and reopen: the project's status set (and its updatedAt), answered with `summary` of its title. */
const setStatus = (
  researchId: string,
  status: "archived" | "active",
  importance: "low" | "normal",
  summary: (title: string) => string
) =>
  Effect.gen(function* () {
    yield* loadProject(researchId)
    const now = yield* nowIso
    const project = yield* changeProject(researchId, (current) =>
      Either.right([current, { ...current, status, updatedAt: now }] as const)
    )
    return {
      summary: summary(project.title),
      data: { researchId, status },
      retention: { importance, facts: [`research project ${researchId} ${status}`] }
    } satisfies ToolResult
  })

const searchResult = (outcome: SearchOutcome, plan: SearchPlan, settings: Settings, shown: number): ToolResult => {
  const omitted = outcome.results.length - shown
  const summary = [
    `${outcome.answeredBy} answered "${plan.query}" with ${outcome.results.length} result(s)${plan.provider === "auto" ? ` (auto tried ${outcome.tried.map((entry) => entry.provider).join(", ")})` : ""}.`,
    omitted > 0 ? `${omitted} result(s) did not fit in maxToolResultChars (${settings.maxToolResultChars}).` : "",
    outcome.searchId === undefined ? "" : `Recorded as ${outcome.searchId} in ${plan.researchId}.`,
    outcome.results.length > 0 ? 'Fetch a result with {"action":"fetch","url":...}.' : ""
  ]
    .filter((part) => part !== "")
    .join(" ")
  return {
    summary,
    data: {
      provider: plan.provider,
      answeredBy: outcome.answeredBy,
      query: plan.query,
      results: outcome.results.slice(0, shown),
      resultsOmitted: omitted,
      tried: outcome.tried,
      ...(outcome.searchId === undefined ? {} : { searchId: outcome.searchId, researchId: plan.researchId })
    },
    retention: {
      importance: "normal",
      facts: [
        `search "${plan.query}" answered by ${outcome.answeredBy}: ${outcome.results.length} result(s)`,
        ...(outcome.searchId === undefined ? [] : [`search ${outcome.searchId} recorded in ${plan.researchId}`])
      ],
      omit_when_summarizing: ["results"]
    }
  }
}

/** search's result: the longest prefix of the results whose envelope fits maxToolResultChars. */
const searchView = (outcome: SearchOutcome, plan: SearchPlan, settings: Settings): ToolResult => {
  const fits = (shown: number) =>
    envelopeChars("research.search", searchResult(outcome, plan, settings, shown)) <= settings.maxToolResultChars
  return searchResult(outcome, plan, settings, Math.max(0, largestFitting(outcome.results.length, fits)))
}

/**
 * show's result with the project view cut to `budget` characters (projectView): the oldest searches, then
 * notes and sources, go first; the summary and data.omitted say what did not fit.
 */
const showResult = (project: Project, path: string, budget: number): ToolResult => {
  const { project: view, omitted } = projectView(project, path, budget)
  const cut = omitted.sources + omitted.notes + omitted.searches > 0
  return {
    summary: `Research project ${project.id} "${project.title}" (${project.status}): ${project.sources.length} source(s), ${project.notes.length} note(s), ${project.searches.length} search(es).${cut ? ` The oldest ${omitted.searches} search(es), ${omitted.notes} note(s) and ${omitted.sources} source(s) did not fit; read ${path} for all of them.` : ""}`,
    data: { researchId: project.id, path, project: view, ...(cut ? { omitted } : {}) },
    retention: {
      importance: "normal",
      facts: [
        `research project ${project.id} "${project.title}" at ${path}`,
        ...project.sources.slice(-10).map((source) => `source ${source.id}: ${source.url} (${source.contentPath})`)
      ],
      omit_when_summarizing: ["project"]
    }
  }
}

export const parts: ToolParts<Actions> = {
  actions: ACTIONS,
  handlers: {
    search: gatedAction({
      gate: "web",
      confirm: confirmAfterRead,
      planSchema: SearchPlanSchema,
      load: (input: ActionInput<Actions, "search">) => loadWeb(input.research_id),
      plan: (input, before: WebBefore) =>
        Either.map(planSearch(input, before.settings), (plan) =>
          plannedWeb(input, plan, before, { provider: plan.provider, providers: plan.providers, query: plan.query })
        ),
      interpret: (_bound, work) => Effect.map(interpretSearch(work.plan), (outcome) => ({ outcome, work })),
      view: ({ outcome, work }) => Effect.succeed(searchView(outcome, work.plan, work.before.settings))
    }),
    fetch: gatedAction({
      gate: "web",
      confirm: confirmAfterRead,
      planSchema: FetchPlanSchema,
      load: (input: ActionInput<Actions, "fetch">) => loadWeb(input.research_id),
      plan: (input, before: WebBefore) =>
        Either.map(planFetch(input, before.settings), (plan) =>
          plannedWeb(input, plan, before, { url: plan.url, host: plan.host })
        ),
      interpret: (_bound, work) => Effect.map(interpretFetch(work.plan), (fetched) => ({ fetched, work })),
      view: ({ fetched, work }) => fetchView(fetched, work.plan, work.before.settings)
    }),
    deep: gatedAction({
      gate: "web",
      planSchema: DeepPlanSchema,
      load: loadDeep,
      plan: (input, before: DeepBefore) => {
        if (before._tag === "Await") return Either.right({ _tag: "NoOp" as const, result: statusView(before.state) })
        return Either.right({
          _tag: "Planned" as const,
          plan: { _tag: "Deep" as const, objective: input.objective, researchId: input.research_id ?? null },
          work: { launch: before.launch, spec: specOf(before.input, before.launch) },
          title: `Research agent: ${input.objective.slice(0, 80)}`,
          prompt: { _tag: "agent" as const, objective: input.objective, reach: before.launch.reach },
          resume: resumeOf(input)
        })
      },
      // The run is started with commit_edits=false and allow_commands=false; deep awaits it, bounded by maxCommandDurationSeconds.
      interpret: (_plan, work) => interpretLaunch(work.spec, { before: work.launch, wait: true }),
      view: (state) =>
        Effect.succeed(
          statusView(
            state,
            state.status === "running"
              ? `The research agent is still going; await it with {"action":"deep","objective":...,"run_id":"${state.runId}"} or workspace_agent status.`
              : undefined
          )
        )
    }),
    start: ungated((input: ActionInput<Actions, "start">) =>
      Effect.gen(function* () {
        const store = yield* OwnStore
        const id = yield* newId("research")
        const now = yield* nowIso
        const project = newProject(id, input.title.trim(), (input.question ?? "").trim(), now)
        yield* store.writeJson(projectFile(id), project)
        const path = store.path(projectFile(id))
        return {
          summary: `Started research project ${id} "${project.title}" at ${path}. Pass research_id "${id}" to search and fetch to record searches and sources; cite source_ids in notes.`,
          data: { researchId: id, path, project: projectLine(project, path) },
          retention: { importance: "high", facts: [`research project ${id} "${project.title}" at ${path}`] }
        } satisfies ToolResult
      })
    ),
    list: ungated((input: ActionInput<Actions, "list">) =>
      Effect.gen(function* () {
        const store = yield* StateReads
        const all = (yield* loadProjects).filter(
          (project) => input.include_archived === true || project.status === "active"
        )
        const limit = input.limit ?? 20
        const shown = all.slice(0, limit).map((project) => projectLine(project, store.path(projectFile(project.id))))
        return {
          summary: `${all.length} research project(s)${input.include_archived === true ? "" : " (active; include_archived lists archived ones too)"}${all.length > shown.length ? `, showing ${shown.length}` : ""}.`,
          data: { projects: shown, total: all.length },
          retention: {
            importance: "normal",
            facts: shown.slice(0, 20).map((project) => `${project.researchId} "${project.title}" (${project.status})`),
            omit_when_summarizing: ["projects"]
          }
        } satisfies ToolResult
      })
    ),
    show: ungated((input: ActionInput<Actions, "show">) =>
      Effect.gen(function* () {
        const store = yield* StateReads
        const settings = yield* CurrentSettings
        const project = yield* loadProject(input.research_id)
        const path = store.path(projectFile(project.id))
        const resultOf = (budget: number) => showResult(project, path, budget)
        // The view gets the largest budget whose envelope as sent fits maxToolResultChars.
        return resultOf(
          largestPartFitting(settings.maxToolResultChars, (budget) => envelopeChars("research.show", resultOf(budget)))
        )
      })
    ),
    note: ungated((input: ActionInput<Actions, "note">) =>
      Effect.gen(function* () {
        yield* loadProject(input.research_id)
        const id = yield* newId("note")
        const createdAt = yield* nowIso
        const note = {
          id,
          kind: input.kind,
          text: input.text.trim(),
          sourceIds: [...new Set(input.source_ids ?? [])],
          createdAt
        }
        yield* changeProject(input.research_id, (project) =>
          Either.map(addNote(project, note), (next) => [undefined, next] as const)
        )
        return {
          summary: `Added ${note.kind} ${id} to ${input.research_id}${note.sourceIds.length > 0 ? ` citing ${note.sourceIds.join(", ")}` : ""}.`,
          data: { researchId: input.research_id, note },
          retention: {
            importance: "normal",
            facts: [`${note.kind} ${id} in ${input.research_id}: ${note.text.slice(0, 160)}`]
          }
        } satisfies ToolResult
      })
    ),
    archive: ungated((input: ActionInput<Actions, "archive">) =>
      setStatus(
        input.research_id,
        "archived",
        "low",
        (title) => `Archived research project ${input.research_id} "${title}"; reopen brings it back.`
      )
    ),
    reopen: ungated((input: ActionInput<Actions, "reopen">) =>
      setStatus(
        input.research_id,
        "active",
        "normal",
        (title) => `Reopened research project ${input.research_id} "${title}".`
      )
    )
  }
}
