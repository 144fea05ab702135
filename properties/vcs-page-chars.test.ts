/**
 * Law: the characters a diff page is fitted by (pageChars, counted line by line without making the page) are
 * the characters of the page's envelope as sent, for any lines (quotes, backslashes, control characters,
 * paired and lone surrogates), offset, limit, page size, file count, artifact and compact form. Oracle:
 * envelopeChars of the page pageBuilder makes (JSON.stringify of the whole envelope).
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { envelopeChars, placeholderArtifact } from "../core/tools/fit.ts"
import { pageBuilder, pageChars, pageOf } from "../core/tools/vcs/view.ts"
import { runs } from "./runs.ts"

const seed = Number(process.env.FC_SEED ?? 20261206)

// Any UTF-16 code unit but the line end, with the ones JSON treats specially made frequent.
const unit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((code) => (code === 10 ? " " : String.fromCharCode(code))),
  fc.constantFrom('"', "\\", "\r", "\t", "\b", "\f", "\u0000", "\u001f", "\u007f", "\ud800", "\udc00", "✓"),
  fc.constantFrom("\ud83d\ude00", "\udbff\udfff", "\ud800\ud800", "\udc00\ud800")
)

// Lines of a diff: file headers (renames and binary files too) and hunk lines (so the page has files and
// counts), and anything else.
const line = fc.oneof(
  fc.string({ unit, maxLength: 8 }).map((name) => `diff --git a/${name} b/${name}`),
  fc
    .tuple(fc.string({ unit, maxLength: 8 }), fc.string({ unit, maxLength: 8 }))
    .map(([from, to]) => `diff --git a/${from} b/${to}`),
  fc.string({ unit, maxLength: 8 }).map((name) => `rename from ${name}`),
  fc.string({ unit, maxLength: 8 }).map((name) => `rename to ${name}`),
  fc.constant("Binary files a/x and b/x differ"),
  fc.constant("@@ -1,3 +1,4 @@"),
  fc.string({ unit, maxLength: 30 }).map((text) => `+${text}`),
  fc.string({ unit, maxLength: 30 }).map((text) => `-${text}`),
  fc.string({ unit, maxLength: 30 })
)

describe("diff page fitting", () => {
  it("pageChars is envelopeChars of the page pageBuilder makes", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 40 }),
        fc.boolean(),
        fc.nat(),
        fc.integer({ min: 1, max: 50 }),
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        fc.boolean(),
        (lines, trailing, offsetSeed, limit, nSeed, fileSeed, withArtifact, compact) => {
          const text = lines.length === 0 ? "" : `${lines.join("\n")}${trailing ? "\n" : ""}`
          const input = {
            operation: "vcs.diff",
            action: "diff",
            args: { action: "diff" },
            text,
            complete: true,
            offset: 0,
            limit,
            snapshot: undefined,
            what: "Diff of the working tree vs the index",
            facts: ["a fact"]
          }
          // An offset within the output (pagedText refuses one past the end before any fitting).
          const offset = offsetSeed % (pageOf(input, "").lines.length + 1)
          const page = pageOf({ ...input, offset }, "0".repeat(64))
          const want = Math.min(limit, page.lines.length - offset)
          const n = nSeed % (want + 1)
          const fileCount = fileSeed % (page.files.length + 1)
          const artifact = withArtifact
            ? placeholderArtifact("vcs", "vcs.diff", "diff", "diff", "The full output of diff.")
            : undefined
          expect(pageChars(page)(compact, n, artifact, fileCount)).toBe(
            envelopeChars("vcs.diff", pageBuilder(page, compact)(n, artifact, fileCount))
          )
        }
      ),
      { seed, numRuns: runs(2000) }
    )
  })
})
