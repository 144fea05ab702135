/** The before-state of workspace_research calls: projects read (and decoded) through the StateReads. */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { toolError } from "../../protocol/errors.ts"
import { StateReads } from "../../store/StateStore.ts"
import { checkProjectId, Project, projectFile, RESEARCH_DIR } from "./project.ts"

const notFound = (id: string) =>
  toolError(
    "NOT_FOUND",
    `No research project ${id}. workspace_research {"action":"list"} (or workspace_inspect changes) lists the projects.`,
    { researchId: id }
  )

/** A stored project, or NOT_FOUND; a bad file is IO_ERROR. */
export const loadProject = (id: string) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const project = yield* store.readJson(projectFile(id), Project)
    if (project === undefined) return yield* Effect.fail(notFound(id))
    return yield* checkProjectId(project, id)
  })

/** Every stored project, newest first by updatedAt (unreadable folders are skipped). */
export const loadProjects = Effect.gen(function* () {
  const store = yield* StateReads
  const entries = yield* store.list(RESEARCH_DIR)
  const projects: Array<Project> = []
  for (const entry of entries) {
    if (entry.type !== "directory" || !/^research_[A-Za-z0-9]+$/.test(entry.name)) continue
    const project = yield* Effect.either(loadProject(entry.name))
    if (Either.isRight(project)) projects.push(project.right)
  }
  return projects.sort((a, b) =>
    a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? 1 : -1
  )
})

/** A project that may be changed (exists and is not archived), checked before any gating. */
export const loadActiveProject = (id: string) =>
  Effect.flatMap(loadProject(id), (project) =>
    project.status === "archived"
      ? Effect.fail(
          toolError(
            "INVALID_INPUT",
            `Research project ${id} is archived; reopen it with {"action":"reopen","research_id":"${id}"} before adding to it.`,
            {
              researchId: id
            }
          )
        )
      : Effect.succeed(project)
  )

/** The changes listing entries (workspace_inspect changes -> researchProjects). */
export const researchChanges = Effect.gen(function* () {
  const store = yield* StateReads
  const projects = yield* loadProjects
  return projects.slice(0, 20).map((project) => ({
    researchId: project.id,
    title: project.title,
    status: project.status,
    sources: project.sources.length,
    notes: project.notes.length,
    searches: project.searches.length,
    updatedAt: project.updatedAt,
    path: store.path(projectFile(project.id))
  }))
})
