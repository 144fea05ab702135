/**
 * Law: preprocessor parsing round-trips. A command written as a user types it parses back to itself,
 * and parsing is a fixpoint of format ∘ parse for any message that starts with /accept or /deny.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type DecisionCommand, formatCommand, isPassThrough, parseCommand } from "../core/gate/preprocess.ts"
import { runs } from "./runs.ts"

const SEED = 20261130
const params = { seed: SEED, numRuns: runs(500) }

const alnum = fc.string({
  unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
  minLength: 1,
  maxLength: 16
})
const id = fc.tuple(fc.constantFrom("approval", "plan"), alnum).map(([prefix, rest]) => `${prefix}_${rest}`)
const looksLikeId = (word: string) => /^(approval|plan)_/i.test(word)
/** A note or reason as a user writes it: trimmed, non-empty; without an id its first word is not id-shaped. */
const text = fc
  .string({ minLength: 1, maxLength: 60 })
  .map((value) => value.trim())
  .filter((value) => value.length > 0)

const command: fc.Arbitrary<DecisionCommand> = fc
  .record({
    verb: fc.constantFrom("accept" as const, "deny" as const),
    id: fc.option(id, { nil: undefined }),
    text: fc.option(text, { nil: undefined })
  })
  .filter((c) => c.id !== undefined || c.text === undefined || !looksLikeId(c.text.split(/\s+/, 1)[0]!))
  .map((c) => ({
    verb: c.verb,
    ...(c.id === undefined ? {} : { id: c.id }),
    ...(c.text === undefined ? {} : { text: c.text })
  }))

describe(`preprocessor parsing round-trips (fast-check seed ${SEED})`, () => {
  it("parseCommand(formatCommand(c)) equals c", () => {
    fc.assert(
      fc.property(command, (c) => {
        expect(parseCommand(formatCommand(c))).toEqual(c)
      }),
      params
    )
  })

  it("for any message starting with /accept or /deny, parse ∘ format ∘ parse = parse", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("/accept", "/deny"),
        fc.constantFrom("", " ", "  ", "\n"),
        fc.string({ maxLength: 80 }),
        (verb, gap, rest) => {
          const parsed = parseCommand(`${verb}${gap === "" && rest.length > 0 ? " " : gap}${rest}`)
          expect(parsed).toBeDefined()
          expect(parseCommand(formatCommand(parsed!))).toEqual(parsed)
        }
      ),
      params
    )
  })

  it("a message not starting with /accept or /deny never parses as a decision", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (message) => {
        fc.pre(!/^\s*\/(accept|deny)(\s|$)/.test(message))
        expect(parseCommand(message)).toBeUndefined()
      }),
      params
    )
  })

  it("the compressor commands are never parsed as decisions and always pass through", () => {
    fc.assert(
      fc.property(fc.constantFrom("/compress", "/compact", "/usage"), fc.string({ maxLength: 40 }), (head, tail) => {
        const message = tail.length === 0 ? head : `${head} ${tail}`
        expect(isPassThrough(message)).toBe(true)
        expect(parseCommand(message)).toBeUndefined()
      }),
      params
    )
  })
})
