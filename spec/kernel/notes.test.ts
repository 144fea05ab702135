/** Reference: workspace_notes (write, append, read, list, delete; MEMORY.md; name rules; sizes; retention). */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openWorkspace, snapshotTree, type TempWorkspace } from "../support/workspace.ts"

let w: TempWorkspace
beforeAll(async () => {
  w = await openWorkspace({ permissionMode: 1 })
})
afterAll(async () => {
  await w.dispose()
})

const notes = (args: Record<string, unknown>) => w.call("workspace_notes", args)

describe("workspace_notes", () => {
  it("'A note is .agentic/notes/<name>.md'; 'files are always newline-terminated' — write returns the path and size", async () => {
    const result = await notes({ action: "write", name: "design", content: "first line" })
    expect(result).toEqual({
      protocol: "agentic-workspace/v1",
      ok: true,
      operation: "notes.write",
      summary: "Wrote note design (11 bytes) at .agentic/notes/design.md.",
      retention: { importance: "normal", facts: ["note design saved at .agentic/notes/design.md"] },
      data: { name: "design", memory: false, path: ".agentic/notes/design.md", bytes: 11 }
    })
    expect(await w.read(".agentic/notes/design.md")).toBe("first line\n")
    await notes({ action: "write", name: "terminated", content: "already\n" })
    expect(await w.read(".agentic/notes/terminated.md")).toBe("already\n")
  })

  it("'Never gated': notes are written in Plan mode with no approved plan", async () => {
    const result = await notes({ action: "write", name: "plan-free", content: "x" })
    expect(result.ok).toBe(true)
  })

  it("'append separates the new text with a blank line'", async () => {
    await notes({ action: "write", name: "log", content: "one" })
    const appended = await notes({ action: "append", name: "log", content: "two" })
    expect(appended.ok).toBe(true)
    expect(await w.read(".agentic/notes/log.md")).toBe("one\n\ntwo\n")
    await notes({ action: "append", name: "fresh", content: "only" })
    expect(await w.read(".agentic/notes/fresh.md")).toBe("only\n")
  })

  it("read returns the content; a missing note is NOT_FOUND", async () => {
    const read = await notes({ action: "read", name: "log" })
    expect(read.data).toEqual({
      name: "log",
      memory: false,
      path: ".agentic/notes/log.md",
      bytes: 9,
      content: "one\n\ntwo\n"
    })
    expect((await notes({ action: "read", name: "nope" })).error?.code).toBe("NOT_FOUND")
  })

  it("'a trailing .md is stripped'", async () => {
    await notes({ action: "write", name: "stripped.md", content: "s" })
    expect(await w.exists(".agentic/notes/stripped.md")).toBe(true)
    expect(await w.exists(".agentic/notes/stripped.md.md")).toBe(false)
    expect((await notes({ action: "read", name: "stripped" })).data).toMatchObject({ content: "s\n" })
  })

  it("every name that list shows reads back the same note (a repeated trailing .md is stripped too)", async () => {
    const fresh = await openWorkspace()
    try {
      for (const name of ["a.md.md", "B.MD", "c.txt", "d.md.txt"]) {
        expect((await fresh.call("workspace_notes", { action: "write", name, content: name })).ok).toBe(true)
      }
      const listed = (await fresh.call("workspace_notes", { action: "list" })).data as {
        notes: Array<{ name: string }>
      }
      expect(listed.notes.map((note) => note.name)).toEqual(["B", "a", "c.txt", "d.md.txt"])
      for (const note of listed.notes) {
        expect((await fresh.call("workspace_notes", { action: "read", name: note.name })).ok, note.name).toBe(true)
      }
    } finally {
      await fresh.dispose()
    }
  })

  it("'memory: true — or the name MEMORY / memory.md in any case — targets .agentic/MEMORY.md'", async () => {
    await notes({ action: "write", memory: true, content: "fact A" })
    expect(await w.read(".agentic/MEMORY.md")).toBe("fact A\n")
    for (const name of ["MEMORY", "memory", "Memory.MD", "memory.md", "MEMORY.md"]) {
      const appended = await notes({ action: "append", name, content: name })
      expect(appended.data).toMatchObject({ memory: true, path: ".agentic/MEMORY.md" })
    }
    expect(await w.read(".agentic/MEMORY.md")).toBe(
      "fact A\n\nMEMORY\n\nmemory\n\nMemory.MD\n\nmemory.md\n\nMEMORY.md\n"
    )
    expect(await w.exists(".agentic/notes/MEMORY.md")).toBe(false)
    expect((await notes({ action: "read", memory: true })).data).toMatchObject({
      memory: true,
      content: expect.stringContaining("fact A")
    })
  })

  it("MEMORY.md 'can be read, written and appended but not deleted'", async () => {
    await notes({ action: "write", memory: true, content: "keep" })
    for (const args of [{ memory: true }, { name: "MEMORY" }, { name: "memory.md" }]) {
      const result = await notes({ action: "delete", ...args })
      expect(result.ok).toBe(false)
      expect(result.error?.code).toBe("INVALID_INPUT")
      expect(result.error?.message).toContain("not deleted")
    }
    expect(await w.read(".agentic/MEMORY.md")).toBe("keep\n")
  })

  it("delete removes a note; deleting a missing note is NOT_FOUND", async () => {
    await notes({ action: "write", name: "gone", content: "x" })
    expect((await notes({ action: "delete", name: "gone" })).data).toEqual({
      name: "gone",
      path: ".agentic/notes/gone.md",
      deleted: true
    })
    expect(await w.exists(".agentic/notes/gone.md")).toBe(false)
    expect((await notes({ action: "delete", name: "gone" })).error?.code).toBe("NOT_FOUND")
  })

  it("sizes: 'at most 200,000 bytes each'; MEMORY.md 'at most 64,000 bytes' — counted in bytes, nothing written when over", async () => {
    expect((await notes({ action: "write", name: "big", content: "x".repeat(199_999) })).ok).toBe(true)
    expect((await w.read(".agentic/notes/big.md")).length).toBe(200_000)
    const before = await snapshotTree(w.dir)
    const over = await notes({ action: "write", name: "big2", content: "é".repeat(100_000) })
    expect(over.error?.code).toBe("INVALID_INPUT")
    expect(over.error?.details).toEqual({ field: "content", bytes: 200_001, limit: 200_000 })
    const tooManyChars = await notes({ action: "write", name: "big3", content: "x".repeat(200_001) })
    expect(tooManyChars.error?.code).toBe("INVALID_INPUT")
    expect(tooManyChars.error?.message).toContain('"content"')
    const appendOver = await notes({ action: "append", name: "big", content: "more" })
    expect(appendOver.error?.code).toBe("INVALID_INPUT")
    expect((await notes({ action: "write", memory: true, content: "m".repeat(63_999) })).ok).toBe(true)
    const memoryOver = await notes({ action: "write", memory: true, content: "m".repeat(64_000) })
    expect(memoryOver.error?.details).toEqual({ field: "content", bytes: 64_001, limit: 64_000 })
    const memoryAppendOver = await notes({ action: "append", memory: true, content: "m" })
    expect(memoryAppendOver.error?.code).toBe("INVALID_INPUT")
    const after = await snapshotTree(w.dir)
    delete before[".agentic/MEMORY.md"]
    delete after[".agentic/MEMORY.md"]
    expect(after).toEqual(before)
    expect((await w.read(".agentic/MEMORY.md")).length).toBe(64_000)
    await notes({ action: "write", memory: true, content: "small" })
    await notes({ action: "delete", name: "big" })
  })

  const badNames: Array<[string, string]> = [
    ["a/b", "a '/'"],
    ["../escape", "'..'"],
    ["..", "'..'"],
    ["a..b", "'..'"],
    ["CON", "a Windows reserved device name"],
    ["nul.md", "a Windows reserved device name with .md"],
    ["com1", "a Windows reserved device name"],
    ["LPT9.txt", "a Windows reserved device name with an extension"],
    ["aux", "a Windows reserved device name"],
    ["prn", "a Windows reserved device name"],
    [".hidden", "a name starting with '.'"],
    ["-dash", "a name starting with '-'"],
    ["sp ace", "a space"],
    ["a\\b", "a backslash"],
    ["x".repeat(65), "65 characters"],
    ["", "an empty name"]
  ]
  for (const [name, why] of badNames) {
    it(`name rules: ${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}…(${name.length})` : name)} (${why}) is INVALID_INPUT naming the field, and nothing is written`, async () => {
      const before = await snapshotTree(w.dir)
      for (const action of ["write", "append", "read", "delete"]) {
        const result = await notes({
          action,
          name,
          ...(action === "write" || action === "append" ? { content: "x" } : {})
        })
        expect(result.ok).toBe(false)
        expect(result.error?.code).toBe("INVALID_INPUT")
        expect(result.error?.message).toContain('"name"')
      }
      expect(await snapshotTree(w.dir)).toEqual(before)
    })
  }

  it("name rules: 'letters, digits, ., _ or -, starts with a letter or digit, and is at most 64 characters' are accepted", async () => {
    for (const name of [
      "a",
      "9lives",
      "v1.2_final-draft",
      "x".repeat(64),
      "x".repeat(64) + ".md",
      "console",
      "com10"
    ]) {
      const result = await notes({ action: "write", name, content: "ok" })
      expect(result.ok, name).toBe(true)
    }
  })

  it("a name is required unless memory is true", async () => {
    const result = await notes({ action: "write", content: "x" })
    expect(result.error?.code).toBe("INVALID_INPUT")
    expect(result.error?.details).toEqual({ field: "name" })
  })
})

describe("workspace_notes list", () => {
  it("'list returns up to limit notes (default 100, with total and a \"showing N\" clause when more exist) plus whether the memory file exists and its size; the notes array is omitted when summarizing and the first 20 names stay in retention.facts'", async () => {
    const fresh = await openWorkspace()
    try {
      const empty = await fresh.call("workspace_notes", { action: "list" })
      expect(empty).toEqual({
        protocol: "agentic-workspace/v1",
        ok: true,
        operation: "notes.list",
        summary: "0 note(s); MEMORY.md does not exist.",
        retention: {
          importance: "normal",
          facts: ["notes: none", "MEMORY.md absent"],
          omit_when_summarizing: ["notes"]
        },
        data: { notes: [], total: 0, memory: { exists: false, bytes: 0, path: ".agentic/MEMORY.md" } }
      })
      const names = Array.from({ length: 105 }, (_, index) => `n${String(index).padStart(3, "0")}`)
      // 105 notes laid down directly (write is specified above); list only reads the folder
      await Promise.all(names.map((name) => fresh.write(`.agentic/notes/${name}.md`, "x\n")))
      await fresh.call("workspace_notes", { action: "write", memory: true, content: "mem" })
      const listed = await fresh.call("workspace_notes", { action: "list" })
      const data = listed.data as {
        notes: Array<{ name: string; path: string; bytes: number }>
        total: number
        memory: unknown
      }
      expect(data.notes).toHaveLength(100)
      expect(data.total).toBe(105)
      expect(data.notes[0]).toMatchObject({ name: "n000", path: ".agentic/notes/n000.md", bytes: 2 })
      expect(data.memory).toEqual({ exists: true, bytes: 4, path: ".agentic/MEMORY.md" })
      expect(listed.summary).toBe("105 note(s) (showing 100 of 105); MEMORY.md exists (4 bytes).")
      expect(listed.retention).toEqual({
        importance: "normal",
        facts: [`notes: ${names.slice(0, 20).join(", ")}`, "MEMORY.md present"],
        omit_when_summarizing: ["notes"]
      })
      const limited = await fresh.call("workspace_notes", { action: "list", limit: 3 })
      expect((limited.data as { notes: unknown[] }).notes).toHaveLength(3)
      expect(limited.summary).toContain("showing 3 of 105")
      const all = await fresh.call("workspace_notes", { action: "list", limit: 200 })
      expect(all.summary).not.toContain("showing")
      for (const limit of [0, 201, "10"]) {
        const bad = await fresh.call("workspace_notes", { action: "list", limit })
        expect(bad.error?.code).toBe("INVALID_INPUT")
        expect(bad.error?.message).toContain('"limit"')
      }
    } finally {
      await fresh.dispose()
    }
  })
})
