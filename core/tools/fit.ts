/**
 * The result budget, in one place: what an envelope costs (maxToolResultChars bounds its JSON), the
 * content-addressed artifact a cut result points to, and `fitResult`, which keeps the largest prefix of a
 * result's items that fits and writes the full output as an artifact when not everything does. Every tool
 * that cuts a result to the budget measures it with `envelopeChars` and this one margin rule: the envelope
 * as sent, with the artifact entry it will carry, at most maxToolResultChars.
 */
import * as Effect from "effect/Effect"
import { sha256Bytes } from "../gate/hash.ts"
import { type Artifact, type EnvelopeError, failure, success, type ToolResult } from "../protocol/envelope.ts"
import { CurrentSettings } from "../services/CurrentSettings.ts"
import { OwnStore } from "../store/StateStore.ts"

/** The characters an envelope costs as JSON: what maxToolResultChars bounds. */
export const envelopeChars = (operation: string, result: ToolResult): number =>
  JSON.stringify(success(operation, result)).length

/**
 * The characters a failure envelope costs as JSON (what the registry sends for `error` under `operation`): for
 * an error whose details carry a variable part (a timeout's log tails), so it is sized to the budget like a
 * success instead of being clipped by boundRefusal.
 */
export const failureChars = (operation: string, error: EnvelopeError): number =>
  JSON.stringify(failure(operation, error)).length

/** A code unit JSON writes as \uXXXX (six characters): a control character without a letter escape, or a surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters JSON escapes as \uXXXX are the point
const SIX_CHAR_ESCAPE = /[\u0000-\u0007\u000b\u000e-\u001f\ud800-\udfff]/

/** The code units JSON writes as two characters: `"`, `\` and the five control characters with a letter escape. */
const TWO_CHAR_ESCAPES = ['"', "\\", "\n", "\r", "\t", "\b", "\f"] as const

/** How many times `unit` (one code unit) occurs in `text`. */
const occurrencesOf = (text: string, unit: string): number => {
  let count = 0
  for (let at = text.indexOf(unit); at >= 0; at = text.indexOf(unit, at + 1)) count++
  return count
}

/**
 * `JSON.stringify(text).length`, counted without making the JSON: the quotes, two characters for `"`, `\`
 * and the five control characters JSON escapes by letter, six for the other control characters and for a
 * lone surrogate (written \uXXXX), one for everything else. A page's text is most of its envelope, so a
 * read measures the envelope around an empty text and adds this (properties/json-chars.test.ts).
 *
 * A text with no control character but those five and no surrogate at all (a read page's, nearly always) is
 * counted with one native scan for the others and one `indexOf` run per two-character escape: about a third
 * of the time of the loop below over every code unit, which counts the rest.
 */
export const jsonStringChars = (text: string): number => {
  if (!SIX_CHAR_ESCAPE.test(text)) {
    let chars = text.length + 2
    for (const unit of TWO_CHAR_ESCAPES) chars += occurrencesOf(text, unit)
    return chars
  }
  let chars = text.length + 2
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code >= 0x20 && code !== 0x22 && code !== 0x5c && (code < 0xd800 || code > 0xdfff)) continue
    if (code === 0x22 || code === 0x5c || code === 8 || code === 9 || code === 10 || code === 12 || code === 13)
      chars += 1
    else if (code < 0x20) chars += 5
    else if (code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1)
      if (next >= 0xdc00 && next <= 0xdfff) index++
      else chars += 5
    } else chars += 5
  }
  return chars
}

/** Where a tool's artifacts live: `.agentic/artifacts/<area>/<stem>-<sha256 prefix>.<extension>`. */
const artifactPath = (area: string, stem: string, sha256: string, extension: string) =>
  `.agentic/artifacts/${area}/${stem}-${sha256.slice(0, 16)}.${extension}`

/** An artifact entry as long as the real one will be (for measuring a result before the artifact is written). */
export const placeholderArtifact = (
  area: string,
  kind: string,
  stem: string,
  extension: string,
  description: string
): Artifact => ({
  kind,
  path: artifactPath(area, stem, "0".repeat(64), extension),
  sha256: "0".repeat(64),
  bytes: 999_999_999_999,
  description
})

/** Writes a full output as a content-addressed artifact (repeating a call reuses the file). */
export const writeArtifact = (
  area: string,
  kind: string,
  stem: string,
  extension: string,
  content: string,
  description: string
) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const bytes = new TextEncoder().encode(content)
    const sha256 = yield* sha256Bytes(bytes)
    const path = artifactPath(area, stem, sha256, extension)
    const rel = path.slice(".agentic/".length)
    // Content-addressed: a file of that name and size holds these bytes already (the next page of a
    // listing, a repeated call), so it is not written again.
    const existing = yield* Effect.orElseSucceed(store.stat(rel), () => undefined)
    if (existing?.size !== bytes.length) yield* store.writeBytes(rel, bytes)
    return { kind, path, sha256, bytes: bytes.length, description } satisfies Artifact
  })

/** The largest n in [0, max] with fits(n), assuming fits is monotone (true up to some n, false after); -1 when none. */
export const largestFitting = (max: number, fits: (n: number) => boolean): number => {
  if (fits(max)) return max
  let low = 0
  let high = max
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2)
    if (fits(middle)) low = middle
    else high = middle
  }
  return fits(low) ? low : -1
}

/**
 * The largest part budget in [0, max] whose envelope fits: `envelopeOf(budget)` is the characters of the whole
 * envelope as sent (envelopeChars) with its variable part (log tails, a text) cut to `budget`, and the answer
 * is the largest budget with `envelopeOf(budget) <= max`, 0 when none fits. The measured envelope replaces a
 * guessed margin; `envelopeOf` must grow with the budget until the part is whole (largestFitting's monotony).
 */
export const largestPartFitting = (max: number, envelopeOf: (partBudget: number) => number): number =>
  Math.max(
    0,
    largestFitting(max, (partBudget) => envelopeOf(partBudget) <= max)
  )

/** What fitResult fits: a result built from the first `n` items, and the full output for the artifact. */
export interface FitInput {
  /** The artifact folder under .agentic/artifacts/ (the tool's short name). */
  readonly area: string
  readonly operation: string
  readonly max: number
  readonly build: (n: number, artifact: Artifact | undefined) => ToolResult
  readonly full: () => string
  readonly kind: string
  readonly stem: string
  /** Default "json". */
  readonly extension?: string
  readonly description: string
}

/**
 * Fits a result built from the first `n` items into the budget: `build(n, artifact)` for the largest n that
 * fits; when not everything fits, the full output (`full()`) is written as an artifact the result names.
 */
export const fitResult = (input: FitInput) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const budget = settings.maxToolResultChars
    const whole = input.build(input.max, undefined)
    if (envelopeChars(input.operation, whole) <= budget) return whole
    const extension = input.extension ?? "json"
    const marker = placeholderArtifact(input.area, input.kind, input.stem, extension, input.description)
    const n = Math.max(
      0,
      largestFitting(input.max, (count) => envelopeChars(input.operation, input.build(count, marker)) <= budget)
    )
    const artifact = yield* writeArtifact(
      input.area,
      input.kind,
      input.stem,
      extension,
      input.full(),
      input.description
    )
    return input.build(n, artifact)
  })
