// The review page's diffs: a unified diff split into files, each shown unified or side by side, with
// line numbers and highlighting; a large or binary file as a summary.

import { el, state } from "./dom.js"
import { highlight } from "./highlight.js"

/**
 * Splits a unified diff into files: {path, lines, binary, note}. A file starts at its `diff --git` header
 * (the edit tool's diffs have one per file) or, without one, at its `---`/`+++` pair. A binary file is the
 * header and one `Binary file …` line (the edit tool's) or git's `Binary files … differ` / `GIT binary patch`.
 */
const parseDiff = (text) => {
  const files = []
  let current
  let headerOnly = false
  const lines = text.split("\n")
  const start = (path) => {
    current = { path, lines: [], binary: false }
    files.push(current)
  }
  // Lines still due in the current hunk (from its @@ header): inside a hunk "--- x" is a removed line.
  let oldLeft = 0
  let newLeft = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (current !== undefined && (oldLeft > 0 || newLeft > 0) && /^[ +\-\\]/.test(line)) {
      if (line[0] !== "+" && line[0] !== "\\") oldLeft--
      if (line[0] !== "-" && line[0] !== "\\") newLeft--
      current.lines.push(line)
      continue
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line)
    if (hunk && current !== undefined) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1])
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2])
      headerOnly = false
      current.lines.push(line)
      continue
    }
    const git = /^diff --git a\/(.*) b\/(.*)$/.exec(line)
    if (git) {
      start(git[2])
      headerOnly = true
      continue
    }
    if (line.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ ")) {
      const from = line.slice(4).split("\t")[0]
      const to = lines[i + 1].slice(4).split("\t")[0]
      const path = (to === "/dev/null" ? from : to).replace(/^[ab]\//, "")
      if (!headerOnly) start(path)
      headerOnly = false
      i++
      continue
    }
    const edit = /^Binary file (.*) (created|deleted|changed) \((\d+) -> (\d+) bytes\)$/.exec(line)
    const gitBinary = /^Binary files (?:a\/)?(.*?) and (?:b\/)?(.*?) differ$/.exec(line)
    if (edit || gitBinary || line.startsWith("GIT binary patch")) {
      if (!headerOnly)
        start(edit ? edit[1] : gitBinary ? (gitBinary[2] === "/dev/null" ? gitBinary[1] : gitBinary[2]) : "binary file")
      current.binary = true
      current.note = edit
        ? `Binary file ${edit[2]}: ${edit[3]} → ${edit[4]} bytes; its contents are not shown.`
        : "Binary file: its contents are not shown."
      headerOnly = false
      continue
    }
    if (
      current === undefined ||
      /^(Index: |={10,}|new file|deleted file|old mode|new mode|similarity|rename |copy )/.test(line)
    )
      continue
    if (
      line.startsWith("@@") ||
      line.startsWith("+") ||
      line.startsWith("-") ||
      line.startsWith(" ") ||
      line.startsWith("\\")
    ) {
      headerOnly = false
      current.lines.push(line)
    }
  }
  return files
}

/** A file diff larger than this many lines is shown as a summary. */
const LARGE_LINES = 5000

const numbered = (lines) => {
  const rows = []
  let oldNo = 0
  let newNo = 0
  for (const line of lines) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(line)
    if (hunk) {
      oldNo = Number(hunk[1])
      newNo = Number(hunk[2])
      rows.push({ type: "hunk", text: line })
    } else if (line.startsWith("+")) rows.push({ type: "add", text: line.slice(1), newNo: newNo++ })
    else if (line.startsWith("-")) rows.push({ type: "del", text: line.slice(1), oldNo: oldNo++ })
    else if (line.startsWith("\\")) rows.push({ type: "hunk", text: line })
    else rows.push({ type: "ctx", text: line.slice(1), oldNo: oldNo++, newNo: newNo++ })
  }
  return rows
}

const unifiedTable = (file, rows) =>
  el(
    "table",
    { class: "diff" },
    el("caption", { class: "skip" }, `Changes to ${file.path}`),
    el("colgroup", {}, el("col", { class: "n" }), el("col", { class: "n" }), el("col", {})),
    el(
      "tbody",
      {},
      rows.map((row) =>
        row.type === "hunk"
          ? el(
              "tr",
              { class: "hunk" },
              el("td", { class: "n" }),
              el("td", { class: "n" }),
              el("td", { class: "c" }, row.text)
            )
          : el(
              "tr",
              { class: row.type },
              el("td", { class: "n" }, row.oldNo === undefined ? "" : String(row.oldNo)),
              el("td", { class: "n" }, row.newNo === undefined ? "" : String(row.newNo)),
              el(
                "td",
                { class: "c", "aria-label": row.type === "add" ? "added" : row.type === "del" ? "removed" : undefined },
                row.type === "add" ? "+ " : row.type === "del" ? "- " : "  ",
                highlight(row.text, file.path)
              )
            )
      )
    )
  )

const splitTable = (file, rows) => {
  const pairs = []
  for (let i = 0; i < rows.length; ) {
    const row = rows[i]
    if (row.type === "del" || row.type === "add") {
      const dels = []
      const adds = []
      while (i < rows.length && rows[i].type === "del") dels.push(rows[i++])
      while (i < rows.length && rows[i].type === "add") adds.push(rows[i++])
      for (let k = 0; k < Math.max(dels.length, adds.length); k++) pairs.push([dels[k], adds[k]])
    } else {
      pairs.push(row.type === "hunk" ? [row, undefined, true] : [row, row])
      i++
    }
  }
  const side = (row, which) =>
    row === undefined
      ? [el("td", { class: "n" }), el("td", { class: "c" })]
      : [
          el("td", { class: "n" }, String((which === "old" ? row.oldNo : row.newNo) ?? "")),
          el(
            "td",
            {
              class: `c ${row.type === "ctx" ? "" : row.type}`,
              "aria-label": row.type === "add" ? "added" : row.type === "del" ? "removed" : undefined
            },
            highlight(row.text, file.path)
          )
        ]
  return el(
    "table",
    { class: "diff split" },
    el("caption", { class: "skip" }, `Changes to ${file.path}, old and new side by side`),
    el("colgroup", {}, el("col", { class: "n" }), el("col", {}), el("col", { class: "n" }), el("col", {})),
    el(
      "tbody",
      {},
      pairs.map(([left, right, hunk]) =>
        hunk
          ? el("tr", { class: "hunk" }, el("td", { colspan: "4" }, left.text))
          : el("tr", {}, side(left, "old"), side(right, "new"))
      )
    )
  )
}

const fileDiff = (file, info) => {
  const added = file.lines.filter((line) => line.startsWith("+")).length
  const removed = file.lines.filter((line) => line.startsWith("-")).length
  const change = info?.change
  const heading = el(
    "h4",
    {},
    info?.destructive || change === "delete"
      ? el("span", { class: "badge danger" }, change === "delete" ? "deletes" : "destructive")
      : undefined,
    change !== undefined ? el("span", { class: "badge" }, change) : undefined,
    file.path,
    ` (+${added} −${removed})`
  )
  if (file.binary)
    return el(
      "div",
      { class: "file" },
      heading,
      el("p", { class: "summary" }, file.note ?? "Binary file: its contents are not shown.")
    )
  if (file.lines.length > LARGE_LINES) {
    return el(
      "div",
      { class: "file" },
      heading,
      el(
        "p",
        { class: "summary" },
        `Large diff (${file.lines.length} lines, +${added} −${removed}): not drawn here; it is in the transaction's changes.diff.`
      )
    )
  }
  const rows = numbered(file.lines)
  return el(
    "div",
    { class: "file" },
    heading,
    state.view === "split" ? splitTable(file, rows) : unifiedTable(file, rows)
  )
}

export const diffView = (text, files) => {
  const byPath = new Map((files ?? []).map((file) => [file.path, file]))
  const parsed = parseDiff(text)
  const drawn = new Set(parsed.map((file) => file.path))
  const extra = (files ?? []).filter((file) => !drawn.has(file.path))
  return el(
    "div",
    { class: "diffs" },
    parsed.map((file) => fileDiff(file, byPath.get(file.path))),
    extra.map((file) =>
      el(
        "div",
        { class: "file" },
        el("h4", {}, el("span", { class: "badge" }, file.change), file.path),
        el("p", { class: "summary" }, "No text diff (binary, a directory, or a move).")
      )
    )
  )
}
