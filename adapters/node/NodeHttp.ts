/**
 * The Node binding of the network port: `HttpClient` from @effect/platform-node's undici client, over
 * an undici Agent whose `connect` enforces the egress policy's address rule on the address actually
 * connected. A name is resolved by the connector's own lookup, which drops refused addresses (so no
 * connection to them is ever opened), and the socket's remote address is checked again once it is
 * connected, before a byte is written: DNS rebinding between a check and the connect cannot slip past,
 * because there is no separate check. IP literals skip DNS and are checked before connecting.
 *
 * undici itself (NodeHttpAgent.ts) loads on the first request.
 *
 * @example
 *   const layer = nodeHttpLayer({ allowPrivateNetwork: false })
 *   // provides HttpClient.HttpClient to the core
 */
import * as dns from "node:dns"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type AddressPolicy, checkAddress } from "../../core/net/address.ts"
import { EgressDeniedError } from "../../core/net/policy.ts"

/** One resolved address. */
export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** How a name becomes addresses: the system resolver by default; tests pass a stub resolver. */
export type Resolver = (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>

/** The system resolver (getaddrinfo, so /etc/hosts and the system's DNS). */
export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4
  }))

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | Array<dns.LookupAddress>,
  family?: number
) => void

/**
 * A `lookup` for net/tls.connect that resolves with `resolve` and keeps only the addresses the policy
 * allows; when none is left it fails with an EgressDeniedError naming the first refused one.
 */
export const guardedLookup =
  (policy: AddressPolicy, resolve: Resolver) =>
  (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const wantFamily = typeof options.family === "number" && options.family !== 0 ? options.family : undefined
        const candidates = addresses.filter((entry) => wantFamily === undefined || entry.family === wantFamily)
        const verdicts = candidates.map((entry) => ({ entry, verdict: checkAddress(entry.address, policy) }))
        const allowed = verdicts.filter((item) => item.verdict.allowed).map((item) => item.entry)
        if (allowed.length === 0) {
          const refused = verdicts.find((item) => !item.verdict.allowed)
          if (refused === undefined || refused.verdict.allowed) {
            callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0)
            return
          }
          callback(new EgressDeniedError(hostname, refused.verdict) as unknown as NodeJS.ErrnoException, "", 0)
          return
        }
        if (options.all === true)
          callback(
            null,
            allowed.map((entry) => ({ address: entry.address, family: entry.family }))
          )
        else callback(null, allowed[0]!.address, allowed[0]!.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0)
    )
  }

/**
 * The Node HttpClient layer: undici under the guarded Agent, destroyed with the runtime. undici and the Agent
 * load on the first request (NodeHttpAgent.ts), not when the layer is built: a workspace that never goes
 * online never parses undici (about 520 KB of the bundle) nor keeps it resident. The client is a thin
 * `makeWith` that hands each request, unchanged, to the undici client once it exists, so every request
 * behaves exactly as before; a failure to load it is a Transport RequestError naming undici.
 */
export const nodeHttpLayer = (
  policy: AddressPolicy,
  resolve: Resolver = systemResolver
): Layer.Layer<HttpClient.HttpClient> =>
  Layer.scoped(
    HttpClient.HttpClient,
    Effect.gen(function* () {
      // One Agent per layer, made on the first request; a promise (not an interruptible effect), so a first
      // request interrupted while undici loads leaves nothing half made for the next one.
      let agent: { readonly destroy: () => Promise<void> } | undefined
      let loading: Promise<HttpClient.HttpClient> | undefined
      const load = () =>
        import("./NodeHttpAgent.ts").then((module) => {
          const made = module.makeGuardedAgent(policy, resolve)
          agent = made
          return module.undiciClient(made)
        })
      const undici = Effect.tryPromise(() => {
        loading ??= load().catch((error: unknown) => {
          loading = undefined
          throw error
        })
        return loading
      })
      yield* Effect.addFinalizer(() =>
        Effect.promise(async () => {
          await loading?.catch(() => undefined)
          await agent?.destroy()
        })
      )
      return HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
        (request) =>
          Effect.flatMap(request, (sent) =>
            Effect.flatMap(
              Effect.mapError(
                undici,
                (cause) =>
                  new HttpClientError.RequestError({
                    request: sent,
                    reason: "Transport",
                    cause,
                    description: "the HTTP client (undici) could not be loaded"
                  })
              ),
              (client) => client.execute(sent)
            )
          ),
        Effect.succeed
      )
    })
  )
