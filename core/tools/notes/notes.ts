/** workspace_notes: plugin-owned notes under .agentic/notes/ and the durable .agentic/MEMORY.md. Never gated. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { StateStore } from "../../store/StateStore.ts"
import { BoundedString, defineTool } from "../Tool.ts"

/** A note's size limit in bytes. */
export const NOTE_MAX_BYTES = 200_000
/** MEMORY.md's size limit in bytes. */
export const MEMORY_MAX_BYTES = 64_000
/** The memory file, relative to .agentic/. */
export const MEMORY_FILE = "MEMORY.md"

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i

/** Where a note lives: the memory file or a named note. */
export type NoteTarget = { readonly memory: true } | { readonly memory: false; readonly name: string }

/** Applies the name rules: a trailing .md stripped; letters, digits, ., _, -; starts with a letter or digit; at most 64; no device names. */
export const noteTarget = (name: string | undefined, memory: boolean | undefined): NoteTarget | ToolError => {
  if (memory === true) return { memory: true }
  if (name === undefined) return toolError("INVALID_INPUT", `field "name" is required unless memory is true.`, { field: "name" })
  // Every trailing .md goes, so a name list shows ("a" for "a.md.md") reads back the same note.
  const stripped = name.replace(/(\.md)+$/i, "")
  if (/^memory$/i.test(stripped)) return { memory: true }
  if (stripped.length === 0 || stripped.length > 64) {
    return toolError("INVALID_INPUT", `field "name" must be 1 to 64 characters (without a trailing .md); got ${stripped.length}.`, { field: "name" })
  }
  if (!NAME.test(stripped)) {
    return toolError(
      "INVALID_INPUT",
      `field "name" "${name}" may use only letters, digits, ".", "_" or "-" and must start with a letter or digit (no "/" or ".."): notes live flat in .agentic/notes/.`,
      { field: "name" }
    )
  }
  if (stripped.includes("..")) {
    return toolError("INVALID_INPUT", `field "name" "${name}" must not contain "..".`, { field: "name" })
  }
  if (RESERVED.test(stripped.split(".")[0]!)) {
    return toolError("INVALID_INPUT", `field "name" "${name}" is a Windows reserved device name; choose another name.`, { field: "name" })
  }
  return { memory: false, name: stripped }
}

const relOf = (target: NoteTarget) => (target.memory ? MEMORY_FILE : `notes/${target.name}.md`)
const limitOf = (target: NoteTarget) => (target.memory ? MEMORY_MAX_BYTES : NOTE_MAX_BYTES)
const labelOf = (target: NoteTarget) => (target.memory ? "MEMORY.md" : `note ${target.name}`)
const byteLength = (text: string) => new TextEncoder().encode(text).length
const terminated = (text: string) => (text.endsWith("\n") ? text : `${text}\n`)

const resolveTarget = (input: { readonly name?: string | undefined; readonly memory?: boolean | undefined }) => {
  const target = noteTarget(input.name, input.memory)
  return "code" in target ? Effect.fail(target) : Effect.succeed(target)
}

const checkSize = (target: NoteTarget, text: string) => {
  const bytes = byteLength(text)
  return bytes > limitOf(target)
    ? Effect.fail(
        toolError("INVALID_INPUT", `${labelOf(target)} would be ${bytes} bytes; the limit is ${limitOf(target)} bytes. Shorten it or split it into several notes.`, {
          field: "content",
          bytes,
          limit: limitOf(target)
        })
      )
    : Effect.succeed(bytes)
}

const Name = Schema.optional(BoundedString(80, "Note name (letters, digits, . _ -)."))
const Memory = Schema.optional(Schema.Boolean.annotations({ description: "true: the workspace memory .agentic/MEMORY.md." }))
const Content = BoundedString(NOTE_MAX_BYTES, "Text to write or append.")

/** The workspace_notes tool. */
export const notesTool = defineTool({
  name: "workspace_notes",
  short: "notes",
  description:
    "Notes that survive compaction: .agentic/notes/<name>.md, or the workspace memory .agentic/MEMORY.md (memory: true). Never gated.",
  actions: {
    write: Schema.Struct({ name: Name, memory: Memory, content: Content }),
    append: Schema.Struct({ name: Name, memory: Memory, content: Content }),
    read: Schema.Struct({ name: Name, memory: Memory }),
    list: Schema.Struct({
      limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 200)).annotations({ description: "Notes (1-200, default 100)." }))
    }),
    delete: Schema.Struct({ name: Name, memory: Memory })
  },
  enabled: () => true,
  hints: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, why: "writes plugin-owned notes under `.agentic/`" },
  storage: [
    { name: "memory", path: ".agentic/MEMORY.md", probe: MEMORY_FILE, description: "durable workspace memory (workspace_notes memory: true)", rank: 10 },
    { name: "notes", path: ".agentic/notes/<name>.md", probe: "notes", description: "notes (workspace_notes)", rank: 20 }
  ],
  probe: { args: { action: "list" }, ok: true },
  handlers: {
    write: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const target = yield* resolveTarget(input)
        const text = terminated(input.content)
        const bytes = yield* checkSize(target, text)
        yield* store.locked(relOf(target), store.writeText(relOf(target), text))
        return {
          summary: `Wrote ${labelOf(target)} (${bytes} bytes) at ${store.path(relOf(target))}.`,
          data: { name: target.memory ? "MEMORY" : target.name, memory: target.memory, path: store.path(relOf(target)), bytes },
          retention: { importance: target.memory ? "high" : "normal", facts: [`${labelOf(target)} saved at ${store.path(relOf(target))}`] }
        }
      }) },
    append: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const target = yield* resolveTarget(input)
        const rel = relOf(target)
        const bytes = yield* store.locked(
          rel,
          Effect.gen(function* () {
            const existing = yield* store.readText(rel)
            const next =
              existing === undefined || existing.length === 0 ? terminated(input.content) : `${terminated(existing)}\n${terminated(input.content)}`
            const size = yield* checkSize(target, next)
            yield* store.writeText(rel, next)
            return size
          })
        )
        return {
          summary: `Appended to ${labelOf(target)}; it is now ${bytes} bytes at ${store.path(rel)}.`,
          data: { name: target.memory ? "MEMORY" : target.name, memory: target.memory, path: store.path(rel), bytes },
          retention: { importance: target.memory ? "high" : "normal", facts: [`${labelOf(target)} appended at ${store.path(rel)}`] }
        }
      }) },
    read: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const target = yield* resolveTarget(input)
        const text = yield* store.readText(relOf(target))
        if (text === undefined) {
          return yield* Effect.fail(
            toolError("NOT_FOUND", `${labelOf(target)} does not exist yet. List notes with workspace_notes {"action":"list"}.`, {
              path: store.path(relOf(target))
            })
          )
        }
        return {
          summary: `${labelOf(target)} (${byteLength(text)} bytes).`,
          data: { name: target.memory ? "MEMORY" : target.name, memory: target.memory, path: store.path(relOf(target)), bytes: byteLength(text), content: text }
        }
      }) },
    list: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const limit = input.limit ?? 100
        const entries = (yield* store.list("notes")).filter((entry) => entry.type === "file" && entry.name.endsWith(".md"))
        const names = entries.map((entry) => entry.name.slice(0, -3)).sort()
        const shown = yield* Effect.forEach(names.slice(0, limit), (name) =>
          Effect.map(store.stat(`notes/${name}.md`), (info) => ({
            name,
            path: store.path(`notes/${name}.md`),
            bytes: info?.size ?? 0,
            updatedAt: info === undefined ? undefined : new Date(info.mtimeMs).toISOString()
          }))
        )
        const memory = yield* store.stat(MEMORY_FILE)
        const showing = names.length > shown.length ? ` (showing ${shown.length} of ${names.length})` : ""
        return {
          summary: `${names.length} note(s)${showing}; MEMORY.md ${memory === undefined ? "does not exist" : `exists (${memory.size} bytes)`}.`,
          data: {
            notes: shown,
            total: names.length,
            memory: { exists: memory !== undefined, bytes: memory?.size ?? 0, path: store.path(MEMORY_FILE) }
          },
          retention: {
            importance: "normal",
            facts: [`notes: ${names.slice(0, 20).join(", ") || "none"}`, `MEMORY.md ${memory === undefined ? "absent" : "present"}`],
            omit_when_summarizing: ["notes"]
          }
        }
      }) },
    delete: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const target = yield* resolveTarget(input)
        if (target.memory) {
          return yield* Effect.fail(
            toolError("INVALID_INPUT", "MEMORY.md can be read, written and appended but not deleted; write it with shorter content instead.", {
              field: "memory"
            })
          )
        }
        const rel = relOf(target)
        const existed = yield* store.locked(
          rel,
          Effect.gen(function* () {
            const info = yield* store.stat(rel)
            if (info === undefined) return false
            yield* store.remove(rel)
            return true
          })
        )
        if (!existed) {
          return yield* Effect.fail(toolError("NOT_FOUND", `${labelOf(target)} does not exist, so nothing was deleted.`, { path: store.path(rel) }))
        }
        return { summary: `Deleted ${labelOf(target)}.`, data: { name: target.name, path: store.path(rel), deleted: true } }
      }) }
  }
})
