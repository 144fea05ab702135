/** The clock as the records write it. */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/** Now (Effect's Clock, so a TestClock moves it) as an ISO 8601 UTC timestamp. */
export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())
