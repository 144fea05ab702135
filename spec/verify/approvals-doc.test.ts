/** docs/APPROVALS.md shows the reference model's cells as tables generated from the model: the doc and the model never disagree. */
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { approvalTablesMarkdown } from "../../core/verify/approvalTables.ts"

const BEGIN = "<!-- BEGIN GENERATED FROM core/verify/model.ts: npm run docs:approvals -->"
const END = "<!-- END GENERATED -->"

describe("docs/APPROVALS.md", () => {
  it("'docs/APPROVALS.md shows its cells as tables, generated from the model': the generated section equals the model's rendering (npm run docs:approvals rewrites it)", () => {
    const text = fs.readFileSync(new URL("../../docs/APPROVALS.md", import.meta.url), "utf8")
    const start = text.indexOf(BEGIN)
    const end = text.indexOf(END)
    expect(start).toBeGreaterThan(0)
    expect(end).toBeGreaterThan(start)
    expect(text.slice(start + BEGIN.length, end).trim()).toBe(approvalTablesMarkdown().trim())
  })

  it("the tables name every mode, every plan state and the codes of the reference", () => {
    const tables = approvalTablesMarkdown()
    for (const word of [
      "Manual (0)",
      "Plan (1)",
      "Auto (2)",
      "pending",
      "approved",
      "completed",
      "superseded",
      "expired",
      "PROTECTED_PATH",
      "APPROVAL_DENIED",
      "APPROVAL_REQUIRED",
      "NOT_FOUND",
      "TRANSACTION_STATE"
    ]) {
      expect(tables).toContain(word)
    }
  })
})
