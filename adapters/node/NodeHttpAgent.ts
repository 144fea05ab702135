/**
 * The undici half of the Node network port, loaded on the first request (adapters/node/NodeHttp.ts imports it
 * with a dynamic `import()`), so undici's half a megabyte is neither parsed at start nor resident in a server
 * that never goes online: an undici Agent whose `connect` enforces the egress policy's address rule on the
 * address actually connected, and @effect/platform-node's HttpClient over it. See NodeHttp.ts for the rule.
 */
import type * as net from "node:net"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Agent, buildConnector } from "undici"
import { type AddressPolicy, checkAddress, isIpLiteral } from "../../core/net/address.ts"
import { EgressDeniedError } from "../../core/net/policy.ts"
import { guardedLookup, type Resolver, systemResolver } from "./NodeHttp.ts"

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

/** @effect/platform-node's undici HttpClient over `agent`. */
export const undiciClient = (agent: Agent): HttpClient.HttpClient => NodeHttpClient.makeUndici(agent)
