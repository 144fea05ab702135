/**
 * A run's conversation: the system and first user message it opens with, and, on resume, the messages
 * rebuilt from its transcript with the calls that started but never finished (their outcome is unknown).
 */
import type { ModelMessage, ModelToolCall } from "../../services/Model.ts"
import type { RunSpec } from "./schema.ts"
import type { TranscriptEntry } from "./store.ts"

/** The system and first user message of a run. */
export const openingMessages = (spec: RunSpec): ReadonlyArray<ModelMessage> => [
  {
    role: "system",
    content: [
      `You are a ${spec.role === "" ? "sub-agent" : spec.role} working in a ${spec.mode} run inside a workspace, through the tools offered.`,
      spec.commitEdits
        ? "Your workspace_edit calls may commit."
        : "Your edits stay planned: workspace_edit offers preview, show and list only; the transaction ids you plan are cited in your evidence for the main model to commit.",
      spec.taskBoardId === null
        ? ""
        : `Work the task board ${spec.taskBoardId}: take the next item with workspace_tasks, and update it with evidence when done.`,
      spec.researchProjectId === null ? "" : `Record sources and notes in research project ${spec.researchProjectId}.`,
      "When done, call finish_run with summary, evidence, remaining_work and confidence; an answer without a tool call ends the run with that text as its summary."
    ]
      .filter((line) => line !== "")
      .join("\n")
  },
  { role: "user", content: spec.context === "" ? spec.objective : `${spec.objective}\n\nContext:\n${spec.context}` }
]

/** The conversation so far, and the calls that started but never finished, from the transcript. */
export const rebuild = (spec: RunSpec, entries: ReadonlyArray<TranscriptEntry>) => {
  const messages: Array<ModelMessage> = [...openingMessages(spec)]
  const started = new Map<string, { name: string; arguments: string }>()
  const settled = new Set<string>()
  let lastCalls: ReadonlyArray<ModelToolCall> = []
  for (const entry of entries) {
    if (entry.type === "model_turn") {
      const message = entry["message"] as { content: string | null; toolCalls: ReadonlyArray<ModelToolCall> }
      messages.push({ role: "assistant", content: message.content, toolCalls: message.toolCalls })
      lastCalls = message.toolCalls
    } else if (entry.type === "tool_call") {
      started.set(String(entry["callId"]), { name: String(entry["name"]), arguments: String(entry["arguments"]) })
    } else if (entry.type === "tool_result" || entry.type === "refused" || entry.type === "tool_unknown") {
      settled.add(String(entry["callId"]))
      messages.push({ role: "tool", toolCallId: String(entry["callId"]), content: String(entry["content"]) })
    } else if (entry.type === "note") {
      messages.push({ role: "user", content: String(entry["content"]) })
    }
  }
  const unknown = [...started.entries()].filter(([id]) => !settled.has(id)).map(([id, call]) => ({ id, ...call }))
  const unstarted = lastCalls.filter((call) => !started.has(call.id) && !settled.has(call.id))
  return { messages, unknown, unstarted }
}
