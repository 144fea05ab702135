/**
 * The Deno binding of the network port: @effect/platform's fetch client over Deno's fetch, with the
 * egress policy's address rule in front. Deno's fetch cannot be told which address to connect to (a
 * fetch by address would break TLS name checks), so here the address rule runs on the answers of
 * Deno.resolveDns (A and AAAA) before the request, not on the connected socket: a name whose DNS
 * answer changes between this check and Deno's own lookup (DNS rebinding) is not caught on Deno, and
 * names only /etc/hosts knows are not seen (localhost and *.localhost are treated as loopback). The
 * Node host checks the address actually connected; see docs/RESEARCH.md.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Layer from "effect/Layer"
import { type AddressPolicy, checkAddress, isIpLiteral } from "../../core/net/address.ts"
import { EgressDeniedError } from "../../core/net/policy.ts"

const resolveAll = async (hostname: string): Promise<ReadonlyArray<string>> => {
  if (hostname === "localhost" || hostname.endsWith(".localhost")) return ["127.0.0.1"]
  const answers = await Promise.all(
    (["A", "AAAA"] as const).map((type) => Deno.resolveDns(hostname, type).catch(() => [] as Array<string>))
  )
  return answers.flat()
}

/** A fetch that refuses, before sending, a host whose literal or resolved addresses the policy refuses. */
export const guardedFetch =
  (policy: AddressPolicy): typeof globalThis.fetch =>
  async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
    const addresses = isIpLiteral(host) ? [host] : await resolveAll(host)
    for (const address of addresses) {
      const verdict = checkAddress(address, policy)
      if (!verdict.allowed) throw new EgressDeniedError(host, verdict)
    }
    // Redirects are followed by the core, hop by hop, so each one passes the policy.
    return fetch(input, { ...init, redirect: "manual" })
  }

/** The Deno HttpClient layer. */
export const denoHttpLayer = (policy: AddressPolicy): Layer.Layer<HttpClient.HttpClient> =>
  FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.Fetch, guardedFetch(policy))))
