/** Where a plan lives in .agentic/plans/ and reading it back. */
import * as Effect from "effect/Effect"
import { StateReads } from "../../store/StateStore.ts"
import { StoredPlanSchema } from "./schema.ts"

export const planDir = (id: string) => `plans/${id}`

export const readPlan = (id: string) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const plan = yield* store.readJson(`${planDir(id)}/plan.json`, StoredPlanSchema)
    const markdown = yield* store.readText(`${planDir(id)}/plan.md`)
    return { plan, markdown, planPath: store.path(`${planDir(id)}/plan.md`) }
  })
