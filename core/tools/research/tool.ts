/**
 * workspace_research: web search and fetch as kind "web" egress the user owns, and research projects
 * under .agentic/research/<research_id>/ that keep their sources. search, fetch and deep are gated;
 * start, list, show, note, archive and reopen touch only .agentic/ state and are never gated.
 * Each gated action runs decode -> load -> plan -> gate -> interpret -> view.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { gated, type GateRequest, loadRecords } from "../../gate/gate.ts"
import { newId } from "../../gate/hash.ts"
import { approvedPlan } from "../../gate/records.ts"
import { NetState } from "../../net/NetState.ts"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { modeName } from "../../settings/settings.ts"
import { StateStore } from "../../store/StateStore.ts"
import { defineTool } from "../Tool.ts"
import { changeProject, interpretFetch, interpretSearch, writeResearchArtifact } from "./interpret.ts"
import { loadActiveProject, loadProject, loadProjects } from "./load.ts"
import { planFetch, planSearch } from "./plan.ts"
import { addNote, newProject, projectFile } from "./project.ts"
import { ACTIONS } from "./schema.ts"
import { FETCH_OVERHEAD, fitLinks, fitResults, fitText, linksShare, projectLine, projectView, textShare } from "./view.ts"

const TOOL = "workspace_research"

export const DESCRIPTION =
  "Web research with sources that last. search (query; provider auto, duckduckgo, wikipedia or searxng; limit) and fetch (url: the page's readable text, its links, title, status, sha256) reach the web and need the user's approval like any mutation; with research_id they are recorded in that project (fetch creates a source_id with a contentPath holding the full text). start (title, question) creates a project; list, show, note (kind finding, claim, question, warning or method; finding and claim cite source_ids), archive and reopen never need approval. deep starts a research agent (needs durable sub-agents). workspace_inspect changes lists the projects after compaction."

const fromEither = <A>(either: Either.Either<A, ToolError>) => Either.match(either, { onLeft: Effect.fail, onRight: Effect.succeed })
const nowIso = Effect.map(Clock.currentTimeMillis, (now) => new Date(now).toISOString())

/**
 * The gate for a web call, with the opt-in stageEgressAfterUntrustedRead: once web content has been
 * read since the host started, the call is decided as in Manual mode (staged until the user accepts
 * exactly it) even in Auto or under an approved plan; Plan without an approved plan still refuses.
 */
const gateWeb = <R>(request: GateRequest, interpret: Effect.Effect<ToolResult, ToolError, R>) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const net = yield* NetState
    const read = settings.stageEgressAfterUntrustedRead ? yield* net.lastUntrustedRead : undefined
    const unlocked = settings.permissionMode === 2 || (settings.permissionMode === 1 && approvedPlan(yield* loadRecords) !== undefined)
    if (read === undefined || !unlocked) return yield* gated(request, interpret)
    const result = yield* gated(request, interpret).pipe(Effect.provideService(CurrentSettings, { ...settings, permissionMode: 0 }))
    const data = result.data as Record<string, unknown> | undefined
    if (data?.["status"] !== "pending_approval") return result
    return {
      ...result,
      summary: `${result.summary} Staged because stageEgressAfterUntrustedRead is on and web content was read before (${read}): that content may be steering this call.`,
      data: { ...data, mode: modeName(settings.permissionMode), stagedBecause: { setting: "stageEgressAfterUntrustedRead", after: read } }
    } satisfies ToolResult
  })

const resumeOf = (input: Record<string, unknown>) => ({ tool: TOOL, arguments: input })

/** The agent issue wires deep; until workspace_agent exists (and enableSubAgents is on) deep is refused before gating. */
const agentAvailable = Effect.gen(function* () {
  const settings = yield* CurrentSettings
  if (!settings.enableSubAgents) return false
  const { ALL_TOOLS } = yield* Effect.promise(() => import("../index.ts"))
  return ALL_TOOLS.some((tool) => tool.name === "workspace_agent")
})

export const researchTool = defineTool({
  name: TOOL,
  short: "research",
  description: DESCRIPTION,
  actions: ACTIONS,
  enabled: (settings, host) => settings.enableWebResearch && host.capabilities.includes("network"),
  annotations: () => ({ readOnlyHint: false, destructiveHint: false, openWorldHint: true }),
  handlers: {
    search: (input) =>
      Effect.gen(function* () {
        const settings = yield* CurrentSettings
        if (input.research_id !== undefined) yield* loadActiveProject(input.research_id)
        const plan = yield* fromEither(planSearch(input, settings))
        const { action: _action, ...args } = input
        return yield* gateWeb(
          {
            tool: TOOL,
            operation: "research.search",
            kind: "web",
            title: plan.title,
            normalized: plan.normalized,
            resume: resumeOf({ action: "search", ...args }),
            preview: { data: { provider: plan.provider, providers: plan.providers, query: plan.query, prompt: plan.prompt } }
          },
          Effect.gen(function* () {
            const outcome = yield* interpretSearch(plan)
            const budget = settings.maxToolResultChars - 1500
            const fitted = fitResults(outcome.results, budget)
            const summary = [
              `${outcome.answeredBy} answered "${plan.query}" with ${outcome.results.length} result(s)${plan.provider === "auto" ? ` (auto tried ${outcome.tried.map((entry) => entry.provider).join(", ")})` : ""}.`,
              fitted.omitted > 0 ? `${fitted.omitted} result(s) did not fit in maxToolResultChars (${settings.maxToolResultChars}).` : "",
              outcome.searchId === undefined ? "" : `Recorded as ${outcome.searchId} in ${plan.researchId}.`,
              outcome.results.length > 0 ? 'Fetch a result with {"action":"fetch","url":...}.' : ""
            ].filter((part) => part !== "").join(" ")
            return {
              summary,
              data: {
                provider: plan.provider,
                answeredBy: outcome.answeredBy,
                query: plan.query,
                results: fitted.results,
                resultsOmitted: fitted.omitted,
                tried: outcome.tried,
                ...(outcome.searchId === undefined ? {} : { searchId: outcome.searchId, researchId: plan.researchId })
              },
              retention: {
                importance: "normal",
                facts: [`search "${plan.query}" answered by ${outcome.answeredBy}: ${outcome.results.length} result(s)`, ...(outcome.searchId === undefined ? [] : [`search ${outcome.searchId} recorded in ${plan.researchId}`])],
                omit_when_summarizing: ["results"]
              }
            } satisfies ToolResult
          })
        )
      }),
    fetch: (input) =>
      Effect.gen(function* () {
        const settings = yield* CurrentSettings
        const plan = yield* fromEither(planFetch(input, settings))
        if (input.research_id !== undefined) yield* loadActiveProject(input.research_id)
        const { action: _action, ...args } = input
        return yield* gateWeb(
          {
            tool: TOOL,
            operation: "research.fetch",
            kind: "web",
            title: plan.title,
            normalized: plan.normalized,
            resume: resumeOf({ action: "fetch", ...args }),
            preview: { data: { url: plan.url, host: plan.host, prompt: plan.prompt } }
          },
          Effect.gen(function* () {
            const fetched = yield* interpretFetch(plan)
            const max = settings.maxToolResultChars
            const links = fitLinks(fetched.links, linksShare(max))
            const text = fitText(fetched.text, textShare(max))
            const artifacts = []
            if (text.truncated && fetched.source === undefined) {
              artifacts.push(yield* writeResearchArtifact("research.fetch.text", "fetch", "md", fetched.text, `The full text of ${fetched.url} (${fetched.text.length} characters).`))
            }
            if (links.omitted > 0) {
              artifacts.push(yield* writeResearchArtifact("research.fetch.links", "links", "json", JSON.stringify(fetched.links), `All ${fetched.links.length} links of ${fetched.url}, as JSON.`))
            }
            const fullText = fetched.source?.contentPath ?? artifacts.find((artifact) => artifact.kind === "research.fetch.text")?.path
            const summary = [
              `Fetched ${fetched.url} (${fetched.status}, ${fetched.contentType}, ${fetched.bytes} bytes${fetched.redirects.length > 0 ? `, after ${fetched.redirects.length} redirect(s)` : ""})${fetched.title === "" ? "" : `: "${fetched.title.slice(0, 120)}"`}.`,
              text.truncated ? `data.text shows ${text.text.length} of ${fetched.text.length} characters; the full text is in ${fullText}.` : "",
              links.omitted > 0 ? `data.links shows ${links.links.length} of ${fetched.links.length} links (linksOmitted ${links.omitted}); all are in ${artifacts.at(-1)!.path}. Raise maxToolResultChars, or re-fetch, to see more links.` : "",
              fetched.source === undefined ? "" : `Source ${fetched.source.id} recorded in ${plan.researchId}; its text is at ${fetched.source.contentPath}.`
            ].filter((part) => part !== "").join(" ")
            return {
              summary,
              data: {
                url: fetched.url,
                requestedUrl: fetched.requestedUrl,
                ...(fetched.redirects.length > 0 ? { redirects: fetched.redirects } : {}),
                status: fetched.status,
                contentType: fetched.contentType,
                charset: fetched.charset,
                title: fetched.title,
                sha256: fetched.sha256,
                bytes: fetched.bytes,
                textChars: fetched.text.length,
                textTruncated: text.truncated,
                ...(fullText === undefined ? {} : { fullTextPath: fullText }),
                ...(fetched.source === undefined ? {} : { researchId: plan.researchId, sourceId: fetched.source.id, contentPath: fetched.source.contentPath, fetchedAt: fetched.source.fetchedAt }),
                text: text.text,
                links: links.links,
                linksOmitted: links.omitted
              },
              retention: {
                importance: "normal",
                facts: [
                  `fetched ${fetched.url} (${fetched.status}) sha256 ${fetched.sha256.slice(0, 16)}`,
                  ...(fetched.source === undefined ? [] : [`source ${fetched.source.id} of ${plan.researchId}: ${fetched.source.contentPath}`]),
                  ...(fullText === undefined || fetched.source !== undefined ? [] : [`full text of ${fetched.url}: ${fullText}`])
                ],
                omit_when_summarizing: ["text", "links"]
              },
              ...(artifacts.length > 0 ? { artifacts } : {})
            } satisfies ToolResult
          })
        )
      }),
    deep: (input) =>
      Effect.gen(function* () {
        if (input.research_id !== undefined) yield* loadActiveProject(input.research_id)
        const settings = yield* CurrentSettings
        if (!(yield* agentAvailable)) {
          return yield* Effect.fail(
            toolError(
              "AGENT_DISABLED",
              settings.enableSubAgents
                ? "deep needs workspace_agent, which this build does not provide yet; use search and fetch with a research_id instead. Nothing was staged."
                : "deep needs durable sub-agents: the user must turn on enableSubAgents (Enable durable sub-agents). Use search and fetch with a research_id instead. Nothing was staged.",
              { setting: "enableSubAgents" }
            )
          )
        }
        return yield* Effect.die(new Error("workspace_agent is registered but research deep is not wired to it yet"))
      }),
    start: (input) =>
      Effect.gen(function* () {
        const store = yield* StateStore
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
      }),
    list: (input) =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const all = (yield* loadProjects).filter((project) => input.include_archived === true || project.status === "active")
        const limit = input.limit ?? 20
        const shown = all.slice(0, limit).map((project) => projectLine(project, store.path(projectFile(project.id))))
        return {
          summary: `${all.length} research project(s)${input.include_archived === true ? "" : " (active; include_archived lists archived ones too)"}${all.length > shown.length ? `, showing ${shown.length}` : ""}.`,
          data: { projects: shown, total: all.length },
          retention: { importance: "normal", facts: shown.slice(0, 20).map((project) => `${project.researchId} "${project.title}" (${project.status})`), omit_when_summarizing: ["projects"] }
        } satisfies ToolResult
      }),
    show: (input) =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const settings = yield* CurrentSettings
        const project = yield* loadProject(input.research_id)
        const path = store.path(projectFile(project.id))
        const { project: view, omitted } = projectView(project, path, settings.maxToolResultChars - FETCH_OVERHEAD)
        const cut = omitted.sources + omitted.notes + omitted.searches > 0
        return {
          summary: `Research project ${project.id} "${project.title}" (${project.status}): ${project.sources.length} source(s), ${project.notes.length} note(s), ${project.searches.length} search(es).${cut ? ` The oldest ${omitted.searches} search(es), ${omitted.notes} note(s) and ${omitted.sources} source(s) did not fit; read ${path} for all of them.` : ""}`,
          data: { researchId: project.id, path, project: view, ...(cut ? { omitted } : {}) },
          retention: {
            importance: "normal",
            facts: [`research project ${project.id} "${project.title}" at ${path}`, ...project.sources.slice(-10).map((source) => `source ${source.id}: ${source.url} (${source.contentPath})`)],
            omit_when_summarizing: ["project"]
          }
        } satisfies ToolResult
      }),
    note: (input) =>
      Effect.gen(function* () {
        yield* loadProject(input.research_id)
        const id = yield* newId("note")
        const createdAt = yield* nowIso
        const note = { id, kind: input.kind, text: input.text.trim(), sourceIds: [...new Set(input.source_ids ?? [])], createdAt }
        yield* changeProject(input.research_id, (project) => Either.map(addNote(project, note), (next) => [undefined, next] as const))
        return {
          summary: `Added ${note.kind} ${id} to ${input.research_id}${note.sourceIds.length > 0 ? ` citing ${note.sourceIds.join(", ")}` : ""}.`,
          data: { researchId: input.research_id, note },
          retention: { importance: "normal", facts: [`${note.kind} ${id} in ${input.research_id}: ${note.text.slice(0, 160)}`] }
        } satisfies ToolResult
      }),
    archive: (input) =>
      Effect.gen(function* () {
        yield* loadProject(input.research_id)
        const now = yield* nowIso
        const project = yield* changeProject(input.research_id, (current) => Either.right([current, { ...current, status: "archived" as const, updatedAt: now }] as const))
        return {
          summary: `Archived research project ${input.research_id} "${project.title}"; reopen brings it back.`,
          data: { researchId: input.research_id, status: "archived" },
          retention: { importance: "low", facts: [`research project ${input.research_id} archived`] }
        } satisfies ToolResult
      }),
    reopen: (input) =>
      Effect.gen(function* () {
        yield* loadProject(input.research_id)
        const now = yield* nowIso
        const project = yield* changeProject(input.research_id, (current) => Either.right([current, { ...current, status: "active" as const, updatedAt: now }] as const))
        return {
          summary: `Reopened research project ${input.research_id} "${project.title}".`,
          data: { researchId: input.research_id, status: "active" },
          retention: { importance: "normal", facts: [`research project ${input.research_id} active`] }
        } satisfies ToolResult
      })
  }
})
