/**
 * `npm run docs:approvals`: rewrites the generated section of docs/APPROVALS.md from the reference model
 * (core/verify/model.ts). spec/verify/approvals-doc.test.ts fails when the doc and the model disagree.
 */
import * as fs from "node:fs"
import { approvalTablesMarkdown } from "../core/verify/approvalTables.ts"

export const BEGIN = "<!-- BEGIN GENERATED FROM core/verify/model.ts: npm run docs:approvals -->"
export const END = "<!-- END GENERATED -->"

const file = new URL("../docs/APPROVALS.md", import.meta.url)
const text = fs.readFileSync(file, "utf8")
const start = text.indexOf(BEGIN)
const end = text.indexOf(END)
if (start < 0 || end < start) throw new Error("docs/APPROVALS.md has no generated section markers")
fs.writeFileSync(file, `${text.slice(0, start + BEGIN.length)}\n\n${approvalTablesMarkdown()}\n${text.slice(end)}`)
process.stdout.write("docs/APPROVALS.md: tables regenerated from the reference model\n")
