/** Where a note lives in .agentic/ and what it may hold: the target of a call, checked before anything is written. */
import * as Effect from "effect/Effect"
import { toolError } from "../../protocol/errors.ts"
import { MEMORY_FILE, MEMORY_MAX_BYTES, NOTE_MAX_BYTES, type NoteTarget, noteTarget } from "./schema.ts"

export const relOf = (target: NoteTarget) => (target.memory ? MEMORY_FILE : `notes/${target.name}.md`)
export const limitOf = (target: NoteTarget) => (target.memory ? MEMORY_MAX_BYTES : NOTE_MAX_BYTES)
export const labelOf = (target: NoteTarget) => (target.memory ? "MEMORY.md" : `note ${target.name}`)
export const byteLength = (text: string) => new TextEncoder().encode(text).length
export const terminated = (text: string) => (text.endsWith("\n") ? text : `${text}\n`)

export const resolveTarget = (input: { readonly name?: string | undefined; readonly memory?: boolean | undefined }) => {
  const target = noteTarget(input.name, input.memory)
  return "code" in target ? Effect.fail(target) : Effect.succeed(target)
}

export const checkSize = (target: NoteTarget, text: string) => {
  const bytes = byteLength(text)
  return bytes > limitOf(target)
    ? Effect.fail(
        toolError(
          "INVALID_INPUT",
          `${labelOf(target)} would be ${bytes} bytes; the limit is ${limitOf(target)} bytes. Shorten it or split it into several notes.`,
          {
            field: "content",
            bytes,
            limit: limitOf(target)
          }
        )
      )
    : Effect.succeed(bytes)
}
