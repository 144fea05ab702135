/**
 * A research project: `.agentic/research/<research_id>/state.json` (the record, a Schema) beside
 * `sources/<source_id>.md` (each fetched source's full text). Every change is a pure function that
 * returns the next project or the refusal, so a refused call cannot change the file.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { RESEARCH_DIR } from "./paths.ts"
import { NOTE_KINDS, PROVIDERS } from "./schema.ts"

/** The research projects folder under .agentic/ (paths.ts). */
export { RESEARCH_DIR }
export const MAX_SOURCES = 1000
export const MAX_NOTES = 2000
export const MAX_SEARCHES = 500

export const projectFile = (id: string) => `${RESEARCH_DIR}/${id}/state.json`
export const sourceFile = (id: string, sourceId: string) => `${RESEARCH_DIR}/${id}/sources/${sourceId}.md`

export const SearchResult = Schema.Struct({
  title: Schema.String,
  url: Schema.String,
  snippet: Schema.String,
  provider: Schema.String,
  rank: Schema.Number
})
export type SearchResult = typeof SearchResult.Type

export const Source = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  title: Schema.String,
  fetchedAt: Schema.String,
  sha256: Schema.String,
  contentPath: Schema.String,
  contentType: Schema.String,
  status: Schema.Number,
  chars: Schema.Number
})
export type Source = typeof Source.Type

export const Note = Schema.Struct({
  id: Schema.String,
  kind: Schema.Literal(...NOTE_KINDS),
  text: Schema.String,
  sourceIds: Schema.Array(Schema.String),
  createdAt: Schema.String
})
export type Note = typeof Note.Type

export const SearchRecord = Schema.Struct({
  id: Schema.String,
  provider: Schema.Literal(...PROVIDERS),
  answeredBy: Schema.String,
  query: Schema.String,
  at: Schema.String,
  results: Schema.Array(SearchResult)
})
export type SearchRecord = typeof SearchRecord.Type

export const Project = Schema.Struct({
  version: Schema.Literal(1),
  id: Schema.String,
  title: Schema.String,
  question: Schema.String,
  status: Schema.Literal("active", "archived"),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  sources: Schema.Array(Source),
  notes: Schema.Array(Note),
  searches: Schema.Array(SearchRecord)
})
export type Project = typeof Project.Type

/**
 * A decoded project stored under another folder's id (copied or planted there) is refused: IO_ERROR
 * naming the file, like any record that does not decode.
 */
export const checkProjectId = (project: Project, id: string): Either.Either<Project, ToolError> =>
  project.id === id
    ? Either.right(project)
    : Either.left(
        toolError(
          "IO_ERROR",
          `The state file .agentic/${projectFile(id)} holds project ${project.id}, not ${id}; move it aside to start that project afresh.`,
          {
            path: `.agentic/${projectFile(id)}`
          }
        )
      )

export const newProject = (id: string, title: string, question: string, now: string): Project => ({
  version: 1,
  id,
  title,
  question,
  status: "active",
  createdAt: now,
  updatedAt: now,
  sources: [],
  notes: [],
  searches: []
})

/** Refuses a change to an archived project. */
export const checkActive = (project: Project): ToolError | undefined =>
  project.status === "archived"
    ? toolError(
        "INVALID_INPUT",
        `Research project ${project.id} is archived; reopen it with {"action":"reopen","research_id":"${project.id}"} before adding to it.`,
        {
          researchId: project.id
        }
      )
    : undefined

const full = (project: Project, what: string, max: number) =>
  toolError(
    "INVALID_INPUT",
    `Research project ${project.id} already holds ${max} ${what}, the most one project keeps; start a new project for further work.`,
    {
      researchId: project.id
    }
  )

/** Adds a note: finding and claim need at least one source id; every id must be a source of this project. */
export const addNote = (project: Project, note: Note): Either.Either<Project, ToolError> => {
  const refused = checkActive(project)
  if (refused !== undefined) return Either.left(refused)
  if ((note.kind === "finding" || note.kind === "claim") && note.sourceIds.length === 0) {
    return Either.left(
      toolError(
        "INVALID_INPUT",
        `A ${note.kind} must cite its sources: give source_ids (source_… ids from fetch with research_id, listed by show).`,
        {
          field: "source_ids"
        }
      )
    )
  }
  const known = new Set(project.sources.map((source) => source.id))
  const missing = note.sourceIds.filter((id) => !known.has(id))
  if (missing.length > 0) {
    return Either.left(
      toolError(
        "INVALID_INPUT",
        `field "source_ids" names ${missing.join(", ")}, which ${missing.length === 1 ? "is not a source" : "are not sources"} of ${project.id}; fetch the page with research_id first, or use an id listed by show.`,
        { field: "source_ids", missing }
      )
    )
  }
  if (project.notes.length >= MAX_NOTES) return Either.left(full(project, "notes", MAX_NOTES))
  return Either.right({ ...project, notes: [...project.notes, note], updatedAt: note.createdAt })
}

/** Adds a source (a fetch with research_id). */
export const addSource = (project: Project, source: Source): Either.Either<Project, ToolError> => {
  const refused = checkActive(project)
  if (refused !== undefined) return Either.left(refused)
  if (project.sources.length >= MAX_SOURCES) return Either.left(full(project, "sources", MAX_SOURCES))
  return Either.right({ ...project, sources: [...project.sources, source], updatedAt: source.fetchedAt })
}

/** Records a search (a search with research_id); the oldest searches go first past MAX_SEARCHES. */
export const addSearch = (project: Project, search: SearchRecord): Either.Either<Project, ToolError> => {
  const refused = checkActive(project)
  if (refused !== undefined) return Either.left(refused)
  return Either.right({
    ...project,
    searches: [...project.searches, search].slice(-MAX_SEARCHES),
    updatedAt: search.at
  })
}

export const setStatus = (project: Project, status: Project["status"], now: string): Project => ({
  ...project,
  status,
  updatedAt: now
})
