/**
 * The Node binding of the network port: `HttpClient` from @effect/platform-node's undici client, over
 * an undici Agent whose `connect` enforces the egress policy's address rule on the address actually
 * connected. A name is resolved by the connector's own lookup, which drops refused addresses (so no
 * connection to them is ever opened), and the socket's remote address is checked again once it is
 * connected, before a byte is written: DNS rebinding between a check and the connect cannot slip past,
 * because there is no separate check. IP literals skip DNS and are checked before connecting.
 *
 * @example
 *   const layer = nodeHttpLayer({ allowPrivateNetwork: false })
 *   // provides HttpClient.HttpClient to the core
 */
import * as dns from "node:dns"
import type * as net from "node:net"
import * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Agent, buildConnector } from "undici"
import { type AddressPolicy, checkAddress, isIpLiteral } from "../../core/net/address.ts"
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

/** An undici Agent whose every connection passes the address rule (see the module doc). */
export const makeGuardedAgent = (policy: AddressPolicy, resolve: Resolver = systemResolver): Agent => {
  const base = buildConnector({ lookup: guardedLookup(policy, resolve) } as buildConnector.BuildOptions)
  const connect: buildConnector.connector = (options, callback) => {
    const host = options.hostname.startsWith("[") ? options.hostname.slice(1, -1) : options.hostname
    if (isIpLiteral(host)) {
      const verdict = checkAddress(host, policy)
      if (!verdict.allowed) {
        callback(new EgressDeniedError(host, verdict), null)
        return
      }
    }
    base(options, (error, socket) => {
      if (error !== null) {
        callback(error, null)
        return
      }
      // The address the socket is connected to, whatever resolved it: the last word.
      const remote = (socket as net.Socket).remoteAddress
      const verdict = remote === undefined ? undefined : checkAddress(remote, policy)
      if (verdict === undefined || !verdict.allowed) {
        socket.destroy()
        callback(
          new EgressDeniedError(
            host,
            verdict !== undefined && !verdict.allowed
              ? verdict
              : {
                  allowed: false,
                  address: "unknown",
                  class: "reserved",
                  message: "the connected address could not be read"
                }
          ),
          null
        )
        return
      }
      callback(null, socket)
    })
  }
  return new Agent({ connect })
}

/** The Node HttpClient layer: undici under the guarded Agent, destroyed with the runtime. */
export const nodeHttpLayer = (
  policy: AddressPolicy,
  resolve: Resolver = systemResolver
): Layer.Layer<HttpClient.HttpClient> =>
  Layer.scoped(
    HttpClient.HttpClient,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => makeGuardedAgent(policy, resolve)),
        (agent) => Effect.promise(() => agent.destroy())
      ),
      (agent) => NodeHttpClient.makeUndici(agent)
    )
  )
