/**
 * What a fetch shows: data.links cut to their share, data.text cut to what the envelope leaves (measured,
 * view.ts `textShare`), and the artifacts that hold what was cut (the full text when no source holds it,
 * all the links when some did not fit).
 */
import * as Effect from "effect/Effect"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import type { Settings } from "../../settings/settings.ts"
import { defined } from "../../text/defined.ts"
import { envelopeChars, placeholderArtifact } from "../fit.ts"
import type { Link } from "./extract.ts"
import { type Fetched, writeResearchArtifact } from "./interpret.ts"
import type { FetchPlan } from "./plan.ts"
import { fitLinks, fitText, linksShare, textShare } from "./view.ts"

const OPERATION = "research.fetch"

/** What a fetch view is built from: the links and the text as cut, and the artifacts holding the rest. */
interface Cut {
  readonly links: { readonly links: ReadonlyArray<Link>; readonly omitted: number }
  readonly text: { readonly text: string; readonly truncated: boolean }
  readonly textArtifact: Artifact | undefined
  readonly linksArtifact: Artifact | undefined
}

/** An artifact a fetch may name: what it holds, its file name and its description. */
interface ArtifactEntry {
  readonly kind: string
  readonly stem: string
  readonly extension: string
  readonly description: string
}

/** The full text's artifact, when no source holds the text. */
const textEntry = (fetched: Fetched): ArtifactEntry => ({
  kind: "research.fetch.text",
  stem: "fetch",
  extension: "md",
  description: `The full text of ${fetched.url} (${fetched.text.length} characters).`
})

/** All the links' artifact, when some did not fit. */
const linksEntry = (fetched: Fetched): ArtifactEntry => ({
  kind: "research.fetch.links",
  stem: "links",
  extension: "json",
  description: `All ${fetched.links.length} links of ${fetched.url}, as JSON.`
})

/** An artifact entry as long as the real one will be, for measuring. */
const marker = (entry: ArtifactEntry) =>
  placeholderArtifact("research", entry.kind, entry.stem, entry.extension, entry.description)

/** Writes an artifact entry's content. */
const write = (entry: ArtifactEntry, content: string) =>
  writeResearchArtifact(entry.kind, entry.stem, entry.extension, content, entry.description)

/** The summary line: what was fetched, what was cut and where the rest is, the source recorded. */
const summaryOf = (fetched: Fetched, plan: FetchPlan, cut: Cut, fullText: string | undefined): string =>
  [
    `Fetched ${fetched.url} (${fetched.status}, ${fetched.contentType}, ${fetched.bytes} bytes${fetched.redirects.length > 0 ? `, after ${fetched.redirects.length} redirect(s)` : ""})${fetched.title === "" ? "" : `: "${fetched.title.slice(0, 120)}"`}.`,
    cut.text.truncated
      ? `data.text shows ${cut.text.text.length} of ${fetched.text.length} characters; the full text is in ${fullText}.`
      : "",
    cut.links.omitted > 0
      ? `data.links shows ${cut.links.links.length} of ${fetched.links.length} links (linksOmitted ${cut.links.omitted}); all are in ${cut.linksArtifact!.path}. Raise maxToolResultChars, or re-fetch, to see more links.`
      : "",
    fetched.source === undefined
      ? ""
      : `Source ${fetched.source.id} recorded in ${plan.researchId}; its text is at ${fetched.source.contentPath}.`
  ]
    .filter((part) => part !== "")
    .join(" ")

/** The data fields: the response, the text's size and place, the source, then the text and links as cut. */
const dataOf = (fetched: Fetched, plan: FetchPlan, cut: Cut, fullText: string | undefined) => ({
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
  textTruncated: cut.text.truncated,
  ...defined({ fullTextPath: fullText }),
  ...(fetched.source === undefined
    ? {}
    : {
        researchId: plan.researchId,
        sourceId: fetched.source.id,
        contentPath: fetched.source.contentPath,
        fetchedAt: fetched.source.fetchedAt
      }),
  text: cut.text.text,
  links: cut.links.links,
  linksOmitted: cut.links.omitted
})

/** The fetch result for one cut: summary, data, retention, and the artifacts the cut names. */
const fetchResult = (fetched: Fetched, plan: FetchPlan, cut: Cut): ToolResult => {
  const fullText = fetched.source?.contentPath ?? cut.textArtifact?.path
  const artifacts = [cut.textArtifact, cut.linksArtifact].filter((artifact) => artifact !== undefined)
  return {
    summary: summaryOf(fetched, plan, cut, fullText),
    data: dataOf(fetched, plan, cut, fullText),
    retention: {
      importance: "normal",
      facts: [
        `fetched ${fetched.url} (${fetched.status}) sha256 ${fetched.sha256.slice(0, 16)}`,
        ...(fetched.source === undefined
          ? []
          : [`source ${fetched.source.id} of ${plan.researchId}: ${fetched.source.contentPath}`]),
        ...(fullText === undefined || fetched.source !== undefined ? [] : [`full text of ${fetched.url}: ${fullText}`])
      ],
      omit_when_summarizing: ["text", "links"]
    },
    ...(artifacts.length > 0 ? { artifacts } : {})
  }
}

/**
 * A fetch as shown within maxToolResultChars: the links fitted to their share, the text to the longest cut
 * whose envelope (measured with artifact entries as long as the real ones) fits, then the artifacts written
 * for what was cut.
 */
export const fetchView = (fetched: Fetched, plan: FetchPlan, settings: Settings) =>
  Effect.gen(function* () {
    const max = settings.maxToolResultChars
    const links = fitLinks(fetched.links, linksShare(max))
    const linksMarker = links.omitted > 0 ? marker(linksEntry(fetched)) : undefined
    const textMarker = fetched.source === undefined ? marker(textEntry(fetched)) : undefined
    const cutAt = (chars: number): Cut => {
      const text = fitText(fetched.text, chars)
      return { links, text, textArtifact: text.truncated ? textMarker : undefined, linksArtifact: linksMarker }
    }
    const share = textShare(max, fetched.text.length, (chars) =>
      envelopeChars(OPERATION, fetchResult(fetched, plan, cutAt(chars)))
    )
    const text = fitText(fetched.text, share)
    const textArtifact =
      text.truncated && fetched.source === undefined ? yield* write(textEntry(fetched), fetched.text) : undefined
    const linksArtifact =
      links.omitted > 0 ? yield* write(linksEntry(fetched), JSON.stringify(fetched.links)) : undefined
    return fetchResult(fetched, plan, { links, text, textArtifact, linksArtifact })
  })
