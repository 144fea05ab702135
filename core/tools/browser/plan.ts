/**
 * The control planner, pure: a decoded control input and the session's record -> the exact control
 * (a ControlPlan) or the refusal. The plan's `normalized` form is what an approval binds: the session,
 * the control type and its target (a ref with the snapshot it was taken from and what it named, or the
 * normalised URL, or the text, key, wait or scroll), so a different target never matches an approval.
 */
import { toolError, type ToolError } from "../../protocol/errors.ts"
import type { BrowserAction, ElementRef } from "../../services/Browser.ts"
import { checkUrl } from "./egress.ts"
import { refRefusal, refStanding, type SessionRecord } from "./load.ts"
import type { ControlInput, ControlType } from "./schema.ts"

/** The default wait for text or a ref, in milliseconds. */
export const WAIT_DEFAULT_MS = 10_000

/** A ref target as an approval binds it. */
export interface RefTarget {
  readonly ref: string
  readonly snapshot: string
  readonly role: string
  readonly name: string
}

/** One planned control. */
export interface ControlPlan {
  readonly sessionId: string
  readonly type: ControlType
  /** What the browser will do. */
  readonly action: BrowserAction
  /** The ref target, for controls that act on an element. */
  readonly target?: RefTarget
  /** What an approval is bound to. */
  readonly normalized: Record<string, unknown>
  /** What the user is asked, e.g. `click e12 (button "Buy")`. */
  readonly title: string
  /** The call that runs this control after /accept: the input as given. */
  readonly resume: Record<string, unknown>
  /** The longest the browser may take. */
  readonly timeoutMs: number
}

/** The fields each control type takes (beside session_id and type). */
const FIELDS: Record<
  ControlType,
  { readonly required: ReadonlyArray<string>; readonly optional: ReadonlyArray<string> }
> = {
  navigate: { required: ["url"], optional: [] },
  click: { required: ["ref"], optional: ["snapshot"] },
  click_text: { required: ["text"], optional: ["exact"] },
  type: { required: ["ref", "text"], optional: ["snapshot", "submit"] },
  press: { required: ["key"], optional: [] },
  wait: { required: [], optional: ["text", "ref", "snapshot", "ms"] },
  scroll: { required: [], optional: ["direction", "ref", "snapshot"] },
  back: { required: [], optional: [] },
  reload: { required: [], optional: [] },
  evaluate: { required: ["expression"], optional: [] }
}

const invalid = (message: string, field: string) => toolError("INVALID_INPUT", message, { field })

const checkFields = (input: ControlInput): ToolError | undefined => {
  const spec = FIELDS[input.type]
  const given = Object.keys(input).filter(
    (key) =>
      key !== "session_id" &&
      key !== "type" &&
      key !== "action" &&
      (input as unknown as Record<string, unknown>)[key] !== undefined
  )
  const extra = given.filter((key) => !spec.required.includes(key) && !spec.optional.includes(key))
  if (extra.length > 0) {
    return invalid(
      `control ${input.type} does not take ${extra.map((key) => `"${key}"`).join(", ")}; it takes ${[...spec.required, ...spec.optional].map((key) => `"${key}"`).join(", ") || "no fields beside session_id and type"}.`,
      extra[0]!
    )
  }
  const missing = spec.required.filter((key) => !given.includes(key))
  if (missing.length > 0)
    return invalid(`control ${input.type} needs ${missing.map((key) => `"${key}"`).join(" and ")}.`, missing[0]!)
  if (input.type === "wait" && input.text !== undefined && input.ref !== undefined)
    return invalid('wait takes "text" or "ref", not both.', "ref")
  if (input.type === "wait" && input.text === undefined && input.ref === undefined && input.ms === undefined) {
    return invalid(
      'wait needs "text" (wait until it shows), "ref" (until that element is visible) or "ms" (a pause of at most 30000).',
      "ms"
    )
  }
  if (input.type === "scroll" && (input.direction === undefined) === (input.ref === undefined)) {
    return invalid(
      'scroll needs exactly one of "direction" ("up" or "down") or "ref" (scroll that element into view).',
      "direction"
    )
  }
  if (input.type === "click_text" && input.text!.trim() === "")
    return invalid('click_text needs a non-empty "text".', "text")
  if (input.type === "wait" && input.text !== undefined && input.text.trim() === "")
    return invalid('wait needs a non-empty "text".', "text")
  return undefined
}

const refTarget = (record: SessionRecord, input: ControlInput): RefTarget | ToolError => {
  const ref = input.ref!
  const standing = refStanding(record, ref)
  if (standing._tag !== "Live") return refRefusal(record, ref, standing)
  if (input.snapshot !== undefined && input.snapshot !== standing.snapshotId) {
    return toolError(
      "STALE_REF",
      `Ref ${ref} is not from snapshot ${input.snapshot.slice(0, 12)}…: the latest snapshot of this session is ${standing.snapshotId.slice(0, 12)}…. Read the page again and use its refs (or leave out "snapshot").`,
      { ref, snapshot: input.snapshot, latestSnapshot: standing.snapshotId }
    )
  }
  return { ref, snapshot: standing.snapshotId, role: standing.target.role, name: standing.target.name }
}

const describeTarget = (target: RefTarget) =>
  `${target.ref} (${target.role}${target.name === "" ? "" : ` "${target.name.slice(0, 60)}"`})`

/** What every control's planner works from: the input, the session, its ref target (and element) and the shared fields. */
interface PlanContext {
  readonly input: ControlInput
  readonly record: SessionRecord
  readonly policy: { readonly allowPrivateNetwork: boolean }
  readonly base: Pick<ControlPlan, "sessionId" | "type" | "resume">
  readonly target: RefTarget | undefined
  /** The ref's element as the latest snapshot recorded it (present exactly when target is). */
  readonly element: ElementRef | undefined
  /** The approval's binding: the session and type, then what the control acts on. */
  readonly bound: (what: Record<string, unknown>) => Record<string, unknown>
}

/** navigate: the URL rule first (EGRESS_DENIED for a refused address, INVALID_INPUT for a bad URL). */
const planNavigate = ({ input, record, policy, base, bound }: PlanContext): ControlPlan | ToolError => {
  const verdict = checkUrl(input.url!, policy)
  if (!verdict.ok) {
    return verdict.reason === "address"
      ? toolError("EGRESS_DENIED", `${verdict.message} Nothing was loaded.`, {
          url: input.url,
          setting: "allowPrivateNetwork"
        })
      : invalid(`field "url": ${verdict.message}`, "url")
  }
  return {
    ...base,
    action: { _tag: "navigate", url: verdict.url },
    normalized: bound({ url: verdict.url }),
    title: `Browser ${record.id}: navigate to ${verdict.url.slice(0, 200)}`,
    timeoutMs: 30_000
  }
}

const planClick = ({ record, base, target, element, bound }: PlanContext): ControlPlan => ({
  ...base,
  target,
  action: { _tag: "click", element: element! },
  normalized: bound({ target }),
  title: `Browser ${record.id}: click ${describeTarget(target!)}`,
  timeoutMs: 30_000
})

/** click_text is bound to the page it was asked on too: the same text elsewhere is another control. */
const planClickText = ({ input, record, base, bound }: PlanContext): ControlPlan => {
  const exact = input.exact ?? false
  return {
    ...base,
    action: { _tag: "click_text", text: input.text!, exact },
    normalized: bound({ text: input.text, exact, url: record.url }),
    title: `Browser ${record.id}: click the first visible "${input.text!.slice(0, 60)}"${exact ? " (exact)" : ""} on ${record.url.slice(0, 120)}`,
    timeoutMs: 30_000
  }
}

const planType = ({ input, record, base, target, element, bound }: PlanContext): ControlPlan => {
  const submit = input.submit ?? false
  return {
    ...base,
    target,
    action: { _tag: "type", element: element!, text: input.text!, submit },
    normalized: bound({ target, text: input.text, submit }),
    title: `Browser ${record.id}: type ${input.text!.length} characters into ${describeTarget(target!)}${submit ? " and press Enter" : ""}`,
    timeoutMs: 30_000
  }
}

const planPress = ({ input, record, base, bound }: PlanContext): ControlPlan => ({
  ...base,
  action: { _tag: "press", key: input.key! },
  normalized: bound({ key: input.key, url: record.url }),
  title: `Browser ${record.id}: press ${input.key}`,
  timeoutMs: 30_000
})

/** wait: for a text, for a ref's element (WAIT_DEFAULT_MS unless ms is given) or a pause; 5 s beyond it to answer. */
const planWait = ({ input, record, base, target, element, bound }: PlanContext): ControlPlan => {
  const ms = input.ms ?? (input.text !== undefined || target !== undefined ? WAIT_DEFAULT_MS : 0)
  const action: BrowserAction =
    input.text !== undefined
      ? { _tag: "wait", text: input.text, ms }
      : target !== undefined
        ? { _tag: "wait", element: element!, ms }
        : { _tag: "wait", ms }
  const what =
    input.text !== undefined
      ? `for "${input.text.slice(0, 60)}"`
      : target !== undefined
        ? `for ${describeTarget(target)}`
        : `${ms} ms`
  return {
    ...base,
    target,
    action,
    normalized: bound({ text: input.text, target, ms }),
    title: `Browser ${record.id}: wait ${what}`,
    timeoutMs: ms + 5000
  }
}

const planScroll = ({ input, record, base, target, element, bound }: PlanContext): ControlPlan => ({
  ...base,
  target,
  action:
    target !== undefined ? { _tag: "scroll", element: element! } : { _tag: "scroll", direction: input.direction! },
  normalized: bound({ target, direction: input.direction }),
  title: `Browser ${record.id}: scroll ${target !== undefined ? `to ${describeTarget(target)}` : input.direction}`,
  timeoutMs: 30_000
})

const planBackOrReload = ({ input, record, base, bound }: PlanContext): ControlPlan => ({
  ...base,
  action: { _tag: input.type === "back" ? "back" : "reload" },
  normalized: bound({ url: record.url }),
  title: `Browser ${record.id}: ${input.type === "back" ? "go back from" : "reload"} ${record.url.slice(0, 160)}`,
  timeoutMs: 30_000
})

const planEvaluate = ({ input, record, base, bound }: PlanContext): ControlPlan => ({
  ...base,
  action: { _tag: "evaluate", expression: input.expression! },
  normalized: bound({ expression: input.expression, url: record.url }),
  title: `Browser ${record.id}: evaluate ${JSON.stringify(input.expression!.slice(0, 80))} on ${record.url.slice(0, 120)}`,
  timeoutMs: 30_000
})

/** The planner of each control type. */
const PLANNERS: Record<ControlType, (context: PlanContext) => ControlPlan | ToolError> = {
  navigate: planNavigate,
  click: planClick,
  click_text: planClickText,
  type: planType,
  press: planPress,
  wait: planWait,
  scroll: planScroll,
  back: planBackOrReload,
  reload: planBackOrReload,
  evaluate: planEvaluate
}

/**
 * Plans one control. Order: the fields the type takes, then the URL rule (navigate), then the ref
 * (STALE_REF / NOT_FOUND), all before any gating, so a refused control is never staged.
 */
export const planControl = (
  input: ControlInput,
  record: SessionRecord,
  policy: { readonly allowPrivateNetwork: boolean }
): ControlPlan | ToolError => {
  const fields = checkFields(input)
  if (fields !== undefined) return fields
  const resume: Record<string, unknown> = { action: "control" }
  for (const [key, value] of Object.entries(input)) if (key !== "action" && value !== undefined) resume[key] = value
  let target: RefTarget | undefined
  if (input.ref !== undefined) {
    const resolved = refTarget(record, input)
    if ("_tag" in resolved) return resolved
    target = resolved
  }
  return PLANNERS[input.type]({
    input,
    record,
    policy,
    base: { sessionId: record.id, type: input.type, resume },
    target,
    element: target === undefined ? undefined : record.latest!.refs![target.ref]!,
    bound: (what) => ({ session: record.id, type: input.type, ...what })
  })
}
