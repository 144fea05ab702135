/**
 * Law: the URL normalisation a fetch approval binds is idempotent, and the approval hash differs for any two
 * different URLs (after normalisation) and is equal for two spellings of one URL. Oracle: the normal form applied
 * twice; WHATWG URL equality of the parsed forms without fragments; case and fragment variants built by hand.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { hashOperation } from "../core/gate/hash.ts"
import { normalizeUrl } from "../core/net/url.ts"
import { planFetch } from "../core/tools/research/plan.ts"
import { defaultSettings } from "../core/settings/settings.ts"
import { runs } from "./runs.ts"

const params = { seed: 20261201, numRuns: runs(300) }
const settings = { ...defaultSettings, allowPrivateNetwork: true }

const url = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true, validSchemes: ["http", "https"] }),
  fc
    .tuple(
      fc.constantFrom("http", "HTTP", "https", "HtTpS"),
      fc.constantFrom("Example.COM", "example.com", "xn--bcher-kva.example", "bücher.example", "[::1]", "127.0.0.1"),
      fc.constantFrom("", ":80", ":443", ":8080"),
      fc.string({ maxLength: 40 }),
      fc.string({ maxLength: 20 })
    )
    .map(
      ([scheme, host, port, pathPart, query]) =>
        `${scheme}://${host}${port}/${pathPart}${query === "" ? "" : `?${query}`}#frag`
    )
)

const approvalHash = async (raw: string) => {
  const plan = planFetch({ url: raw }, settings)
  return Either.isRight(plan)
    ? Effect.runPromise(hashOperation({ tool: "workspace_research", kind: "web", operation: plan.right.bound }))
    : undefined
}

describe("fetch URL normalisation", () => {
  it("is idempotent: normalize(normalize(u)) = normalize(u)", () => {
    fc.assert(
      fc.property(url, (raw) => {
        const once = normalizeUrl(raw)
        if (once === undefined) return
        expect(normalizeUrl(once)).toBe(once)
        expect(once.includes("#")).toBe(false)
      }),
      params
    )
  })

  it("the approval hash differs for any two different URLs and is equal for two spellings of one", () => {
    return fc.assert(
      fc.asyncProperty(url, url, async (a, b) => {
        const [na, nb] = [normalizeUrl(a), normalizeUrl(b)]
        const [ha, hb] = [await approvalHash(a), await approvalHash(b)]
        if (na === undefined || nb === undefined || ha === undefined || hb === undefined) return
        expect(ha === hb).toBe(na === nb)
      }),
      params
    )
  })

  it("upper-case scheme and host, a default port and a fragment do not change the hash; the path's case does", () => {
    return fc.assert(
      fc.asyncProperty(fc.webUrl({ validSchemes: ["https"], withQueryParameters: true }), async (raw) => {
        const parsed = new URL(raw)
        // Same URL, other spelling: the scheme and host upper-cased, the default port written out, a fragment added.
        const variant = `${raw.replace(/^https:\/\/([^/?#]+)/, (_, host: string) => `HTTPS://${host.toUpperCase()}${parsed.port === "" ? ":443" : ""}`)}${raw.includes("#") ? "" : "#anything"}`
        expect(await approvalHash(variant)).toBe(await approvalHash(raw))
        if (/[a-z]/.test(parsed.pathname)) {
          const upper = new URL(raw)
          upper.pathname = upper.pathname.toUpperCase()
          const upperPath = upper.href
          expect(await approvalHash(upperPath)).not.toBe(await approvalHash(raw))
        }
      }),
      params
    )
  })
})
