/** The actions of workspace_notes (never gated): write, append, read, list and delete a note or MEMORY.md. */
import * as Effect from "effect/Effect"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { OwnStore, StateReads } from "../../store/StateStore.ts"
import { byteLength, checkSize, labelOf, relOf, resolveTarget, terminated } from "./load.ts"
import { MEMORY_FILE, type NotesInput } from "./schema.ts"

export const writeNote = (input: NotesInput<"write">): Effect.Effect<ToolResult, ToolError, OwnStore> =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const target = yield* resolveTarget(input)
    const text = terminated(input.content)
    const bytes = yield* checkSize(target, text)
    yield* store.locked(relOf(target), store.writeText(relOf(target), text))
    return {
      summary: `Wrote ${labelOf(target)} (${bytes} bytes) at ${store.path(relOf(target))}.`,
      data: {
        name: target.memory ? "MEMORY" : target.name,
        memory: target.memory,
        path: store.path(relOf(target)),
        bytes
      },
      retention: {
        importance: target.memory ? "high" : "normal",
        facts: [`${labelOf(target)} saved at ${store.path(relOf(target))}`]
      }
    }
  })

export const appendNote = (input: NotesInput<"append">): Effect.Effect<ToolResult, ToolError, OwnStore> =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const target = yield* resolveTarget(input)
    const rel = relOf(target)
    const bytes = yield* store.locked(
      rel,
      Effect.gen(function* () {
        const existing = yield* store.readText(rel)
        const next =
          existing === undefined || existing.length === 0
            ? terminated(input.content)
            : `${terminated(existing)}\n${terminated(input.content)}`
        const size = yield* checkSize(target, next)
        yield* store.writeText(rel, next)
        return size
      })
    )
    return {
      summary: `Appended to ${labelOf(target)}; it is now ${bytes} bytes at ${store.path(rel)}.`,
      data: { name: target.memory ? "MEMORY" : target.name, memory: target.memory, path: store.path(rel), bytes },
      retention: {
        importance: target.memory ? "high" : "normal",
        facts: [`${labelOf(target)} appended at ${store.path(rel)}`]
      }
    }
  })

export const readNote = (input: NotesInput<"read">): Effect.Effect<ToolResult, ToolError, StateReads> =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const target = yield* resolveTarget(input)
    const text = yield* store.readText(relOf(target))
    if (text === undefined) {
      return yield* Effect.fail(
        toolError(
          "NOT_FOUND",
          `${labelOf(target)} does not exist yet. List notes with workspace_notes {"action":"list"}.`,
          {
            path: store.path(relOf(target))
          }
        )
      )
    }
    return {
      summary: `${labelOf(target)} (${byteLength(text)} bytes).`,
      data: {
        name: target.memory ? "MEMORY" : target.name,
        memory: target.memory,
        path: store.path(relOf(target)),
        bytes: byteLength(text),
        content: text
      }
    }
  })

export const listNotes = (input: NotesInput<"list">): Effect.Effect<ToolResult, ToolError, StateReads> =>
  Effect.gen(function* () {
    const store = yield* StateReads
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
        facts: [
          `notes: ${names.slice(0, 20).join(", ") || "none"}`,
          `MEMORY.md ${memory === undefined ? "absent" : "present"}`
        ],
        omit_when_summarizing: ["notes"]
      }
    }
  })

export const deleteNote = (input: NotesInput<"delete">): Effect.Effect<ToolResult, ToolError, OwnStore> =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const target = yield* resolveTarget(input)
    if (target.memory) {
      return yield* Effect.fail(
        toolError(
          "INVALID_INPUT",
          "MEMORY.md can be read, written and appended but not deleted; write it with shorter content instead.",
          {
            field: "memory"
          }
        )
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
      return yield* Effect.fail(
        toolError("NOT_FOUND", `${labelOf(target)} does not exist, so nothing was deleted.`, { path: store.path(rel) })
      )
    }
    return { summary: `Deleted ${labelOf(target)}.`, data: { name: target.name, path: store.path(rel), deleted: true } }
  })
