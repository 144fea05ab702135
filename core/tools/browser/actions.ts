/** workspace_browser's action Schemas and handlers, loaded on the tool's first call or listing (tool.ts). */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { NetState } from "../../net/NetState.ts"
import type { ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { gatedAction, type Planned, type ToolParts } from "../Tool.ts"
import { closeOne, listAll, openSession, runControl } from "./interpret.ts"
import { readPage } from "./read.ts"
import { loadOpenSession, refRefusal, refStanding, type SessionRecord, sweepIdle } from "./load.ts"
import { type ControlPlan, planControl } from "./plan.ts"
import { browserActions, type ControlInput, type ReadInput } from "./schema.ts"
import { withRefs } from "./stored.ts"
import { defined } from "../../text/defined.ts"

/** What a control's approval is bound to: the session, the control type and its target. */
export const BrowserControlPlan = Schema.TaggedStruct("BrowserControl", {
  session: Schema.String,
  type: Schema.String,
  target: Schema.optional(
    Schema.Struct({ ref: Schema.String, snapshot: Schema.String, role: Schema.String, name: Schema.String })
  ),
  url: Schema.optional(Schema.String),
  text: Schema.optional(Schema.String),
  exact: Schema.optional(Schema.Boolean),
  submit: Schema.optional(Schema.Boolean),
  key: Schema.optional(Schema.String),
  ms: Schema.optional(Schema.Number),
  direction: Schema.optional(Schema.String),
  expression: Schema.optional(Schema.String)
})
export type BrowserControlPlan = typeof BrowserControlPlan.Type

/** What a control loads before planning: the open session, and the last untrusted read when stageEgressAfterUntrustedRead is on. */
interface ControlBefore {
  readonly record: SessionRecord
  readonly untrustedRead: string | undefined
}

const controlAction = gatedAction({
  gate: "browser",
  planSchema: BrowserControlPlan,
  load: (input: ControlInput) =>
    Effect.zipRight(
      sweepIdle,
      Effect.gen(function* () {
        const loaded = yield* loadOpenSession(input.session_id)
        // Only a control on a ref needs the latest snapshot's refs.
        const record = input.ref === undefined ? loaded : yield* withRefs(loaded)
        const settings = yield* CurrentSettings
        const untrustedRead = settings.stageEgressAfterUntrustedRead
          ? yield* Effect.flatMap(NetState, (net) => net.lastUntrustedRead)
          : undefined
        return { record, untrustedRead } satisfies ControlBefore
      })
    ),
  // stageEgressAfterUntrustedRead: after web content reached the model (a browser read or a research fetch),
  // every control (each can make the page reach other hosts) is confirmed by the user whatever the mode.
  confirm: (_input, before) => before.untrustedRead !== undefined,
  plan: (
    input,
    { record, untrustedRead }: ControlBefore
  ): Either.Either<Planned<BrowserControlPlan, ControlPlan>, ToolError> => {
    const planned = planControl(input, record, { allowPrivateNetwork: record.allowPrivateNetwork })
    if ("_tag" in planned) return Either.left(planned)
    return Either.right({
      _tag: "Planned",
      plan: { _tag: "BrowserControl", ...(planned.normalized as Omit<BrowserControlPlan, "_tag">) },
      work: planned,
      title: planned.title,
      prompt: {
        _tag: "browser",
        session: planned.sessionId,
        page: record.url,
        control: planned.title.replace(/^Browser [^:]+: /, "")
      },
      resume: { tool: "workspace_browser", arguments: planned.resume },
      preview: {
        data: {
          sessionId: planned.sessionId,
          type: planned.type,
          ...defined({ target: planned.target }),
          ...(planned.action._tag === "navigate" ? { url: planned.action.url } : {}),
          pageUrl: record.url,
          ...(untrustedRead === undefined
            ? {}
            : { stagedBecause: { setting: "stageEgressAfterUntrustedRead", after: untrustedRead } })
        }
      }
    })
  },
  interpret: (_plan, work) => runControl(work),
  view: (outcome) => Effect.succeed(outcome)
})

const withSweep = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.zipRight(sweepIdle, effect)

/** The parts of workspace_browser without evaluate (false) or with it (true). */
export const partsFor = (evaluate: boolean): ToolParts<ReturnType<typeof browserActions>> => ({
  actions: browserActions(evaluate),
  handlers: {
    open: { gate: "none", run: () => withSweep(openSession) },
    read: {
      gate: "none",
      run: (input) =>
        withSweep(
          readPage(input as ReadInput, (record, ref) => {
            const standing = refStanding(record, ref)
            return Effect.fail(refRefusal(record, ref, standing._tag === "Live" ? { _tag: "Unknown" } : standing))
          })
        )
    },
    control: controlAction as any,
    list: { gate: "none", run: () => withSweep(listAll) },
    close: { gate: "none", run: (input) => withSweep(closeOne((input as { session_id: string }).session_id)) }
  }
})
