/** workspace_research input: one Struct per action, wire names from the reference (snake_case). */
import * as Schema from "effect/Schema"
import { BoundedString } from "../Tool.ts"

export const PROVIDERS = ["auto", "duckduckgo", "wikipedia", "searxng"] as const
export type ProviderName = (typeof PROVIDERS)[number]
export const NOTE_KINDS = ["finding", "claim", "question", "warning", "method"] as const
export type NoteKind = (typeof NOTE_KINDS)[number]

/** The longest URL a call may give, in characters (8 KB). */
export const MAX_URL_INPUT = 8192
export const MAX_QUERY = 1000
export const MAX_OBJECTIVE = 20_000

const NonEmpty = (max: number, description: string) =>
  BoundedString(max, description).pipe(Schema.filter((text) => text.trim() !== "" || "must not be empty"))

export const ResearchId = Schema.String.pipe(
  Schema.pattern(/^research_[A-Za-z0-9]+$/, { message: () => "must be a research_* id" })
).annotations({
  description: "The research project id (research_…) returned by start."
})
export const SourceId = Schema.String.pipe(
  Schema.pattern(/^source_[A-Za-z0-9]+$/, { message: () => "must be a source_* id" })
)

export const SearchInput = Schema.Struct({
  query: NonEmpty(MAX_QUERY, "What to search for."),
  provider: Schema.optional(
    Schema.Literal(...PROVIDERS).annotations({ description: "auto (default), duckduckgo, wikipedia or searxng." })
  ),
  limit: Schema.optional(
    Schema.Int.pipe(Schema.between(1, 50)).annotations({ description: "At most this many results (1-50, default 10)." })
  ),
  research_id: Schema.optional(ResearchId)
})
export const FetchInput = Schema.Struct({
  url: Schema.String.pipe(
    Schema.maxLength(MAX_URL_INPUT, { message: () => `must be at most ${MAX_URL_INPUT} characters (8 KB)` }),
    Schema.filter((url) => url.trim() !== "" || "must not be empty")
  ).annotations({ description: "The http(s) URL to fetch and extract." }),
  research_id: Schema.optional(ResearchId)
})
export const StartInput = Schema.Struct({
  title: NonEmpty(200, "The project's title."),
  question: Schema.optional(BoundedString(4000, "The question the research answers."))
})
export const ListInput = Schema.Struct({
  include_archived: Schema.optional(Schema.Boolean.annotations({ description: "Also list archived projects." })),
  limit: Schema.optional(
    Schema.Int.pipe(Schema.between(1, 100)).annotations({
      description: "At most this many projects (1-100, default 20)."
    })
  )
})
export const ShowInput = Schema.Struct({ research_id: ResearchId })
export const NoteInput = Schema.Struct({
  research_id: ResearchId,
  kind: Schema.Literal(...NOTE_KINDS).annotations({ description: "finding, claim, question, warning or method." }),
  text: NonEmpty(4000, "The note's text."),
  source_ids: Schema.optional(
    Schema.Array(SourceId)
      .pipe(Schema.maxItems(50))
      .annotations({ description: "The source_ids the note rests on; required (at least one) for finding and claim." })
  )
})
export const ArchiveInput = Schema.Struct({ research_id: ResearchId })
export const ReopenInput = Schema.Struct({ research_id: ResearchId })
export const DeepInput = Schema.Struct({
  objective: NonEmpty(MAX_OBJECTIVE, "What the research agent should find out (at most 20,000 characters)."),
  research_id: Schema.optional(ResearchId),
  run_id: Schema.optional(
    Schema.String.pipe(Schema.pattern(/^run_[A-Za-z0-9]+$/, { message: () => "must be a run_* id" })).annotations({
      description: "Await this run instead of starting one."
    })
  )
})

export const ACTIONS = {
  search: SearchInput,
  fetch: FetchInput,
  start: StartInput,
  deep: DeepInput,
  list: ListInput,
  show: ShowInput,
  note: NoteInput,
  archive: ArchiveInput,
  reopen: ReopenInput
}

/** The plan a search approval binds: the provider, the query and the endpoint each provider would be asked at. */
export const SearchPlanSchema = Schema.TaggedStruct("Search", {
  provider: Schema.Literal(...PROVIDERS),
  query: Schema.String,
  endpoints: Schema.Record({ key: Schema.String, value: Schema.String })
})
export type SearchPlanValue = typeof SearchPlanSchema.Type

/** The plan a fetch approval binds: the normalised URL. */
export const FetchPlanSchema = Schema.TaggedStruct("Fetch", { url: Schema.String })
export type FetchPlanValue = typeof FetchPlanSchema.Type

/** The plan a deep approval would bind: the objective and the project it records into. */
export const DeepPlanSchema = Schema.TaggedStruct("Deep", {
  objective: Schema.String,
  researchId: Schema.NullOr(Schema.String)
})
export type DeepPlanValue = typeof DeepPlanSchema.Type
