/**
 * What workspace_research shows: the budget split of a fetch (data.links gets its own share, a quarter
 * of maxToolResultChars and at least 1000 characters, measured as JSON.stringify(data.links).length;
 * data.text gets what the measured envelope leaves) and the project views (show fits them by measuring its envelope).
 */
import { largestFitting } from "../fit.ts"
import type { Link } from "./extract.ts"
import type { Project } from "./project.ts"

/** data.links' share (the reference's rule): a quarter of maxToolResultChars, at least 1000 characters. */
export const linksShare = (maxToolResultChars: number): number => Math.max(1000, Math.floor(maxToolResultChars / 4))

/**
 * data.text's share, measured: the largest number of characters (at most the text's length) for which the
 * envelope built with the text cut there — summary, the other data fields, the links as fitted to their share,
 * the artifact entries it will carry — is at most maxToolResultChars (`envelopeOf(chars)` measures it; it grows
 * with `chars` below the text's length). Never less than half the budget: at the smallest budgets the links'
 * "at least 1000" leaves the envelope over maxToolResultChars, and the text still gets half.
 */
export const textShare = (
  maxToolResultChars: number,
  textChars: number,
  envelopeOf: (chars: number) => number
): number =>
  Math.max(
    largestFitting(textChars, (chars) => envelopeOf(chars) <= maxToolResultChars),
    Math.floor(maxToolResultChars / 2)
  )

/** The longest prefix of `links` whose JSON is at most `share` characters, and how many did not fit. */
export const fitLinks = (
  links: ReadonlyArray<Link>,
  share: number
): { readonly links: ReadonlyArray<Link>; readonly omitted: number } => {
  let used = 2 // "[]"
  let count = 0
  for (const link of links) {
    const size = JSON.stringify(link).length + (count === 0 ? 0 : 1)
    if (used + size > share) break
    used += size
    count++
  }
  return { links: links.slice(0, count), omitted: links.length - count }
}

/** At most `share` characters of `text`, never splitting a surrogate pair. */
export const fitText = (text: string, share: number): { readonly text: string; readonly truncated: boolean } => {
  if (text.length <= share) return { text, truncated: false }
  let end = Math.max(0, share)
  const code = text.charCodeAt(end - 1)
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end--
  return { text: text.slice(0, end), truncated: true }
}

/** A project's one-line view for list. */
export const projectLine = (project: Project, path: string) => ({
  researchId: project.id,
  title: project.title,
  question: project.question,
  status: project.status,
  sources: project.sources.length,
  notes: project.notes.length,
  searches: project.searches.length,
  createdAt: project.createdAt,
  updatedAt: project.updatedAt,
  path
})

/**
 * A project shown within `budget` characters: sources, notes and searches newest last; when it does not
 * fit, the oldest searches' results go first, then the oldest notes and sources (counted in `omitted`).
 * The full record is always its state.json.
 */
export const projectView = (project: Project, path: string, budget: number) => {
  const searches = project.searches.map((search) => ({
    ...search,
    results: search.results.slice(0, 5),
    resultCount: search.results.length
  }))
  let view = { ...projectLine(project, path), sources: project.sources, notes: project.notes, searches }
  const omitted = { sources: 0, notes: 0, searches: 0 }
  const size = () => JSON.stringify(view).length
  while (size() > budget && (view.searches.length > 0 || view.notes.length > 0 || view.sources.length > 0)) {
    if (view.searches.length > 0) {
      view = { ...view, searches: view.searches.slice(1) }
      omitted.searches++
    } else if (view.notes.length > 0) {
      view = { ...view, notes: view.notes.slice(1) }
      omitted.notes++
    } else {
      view = { ...view, sources: view.sources.slice(1) }
      omitted.sources++
    }
  }
  return { project: view, omitted }
}
