/**
 * The fetch engine behind every web request of the core: one GET through `HttpClient` (the host's
 * port) with the egress policy in front of every hop. Redirects are followed by hand, at most
 * `maxRedirects`, each target checked again by `checkUrl` (and by the host's connector after DNS);
 * the body is read up to `maxBytes` and the whole exchange is bounded by `timeoutMs`.
 *
 * @example
 *   const response = yield* egressGet("https://example.com/", { policy, label: "example.com" })
 *   response.url      // the final URL after redirects
 *   response.body     // at most policy.maxBytes bytes
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { toolError, type ToolError } from "../protocol/errors.ts"
import { findEgressDenial, type EgressPolicy } from "./policy.ts"
import { checkUrl } from "./url.ts"
import { defined } from "../text/defined.ts"

/** A response as the engine returns it: the final URL, the status, lower-cased headers and the body bytes. */
export interface EgressResponse {
  readonly url: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
  /** Every URL that answered with a redirect, in order (the final URL is not among them). */
  readonly redirects: ReadonlyArray<string>
}

/** What one request needs beside the policy. */
export interface EgressRequest<R = never> {
  readonly policy: EgressPolicy
  /** Who is asked, for messages: a provider name ("duckduckgo") or a host. */
  readonly label: string
  readonly accept?: string
  /** Runs before each hop is requested (robots.txt for fetch); a failure stops the request. */
  readonly beforeHop?: (url: string) => Effect.Effect<void, ToolError, R>
  /**
   * Looks at the status and headers before the body is read; a ToolError refuses the response without
   * reading it (binary types for fetch).
   */
  readonly inspect?: (status: number, headers: Readonly<Record<string, string>>, url: string) => ToolError | undefined
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** A Location resolved against the URL that sent it; undefined when it is not a URL. */
const resolveLocation = (location: string, base: string): string | undefined => {
  try {
    return new URL(location, base).href
  } catch {
    return undefined
  }
}

/** The EGRESS_DENIED error for a refused URL or address. */
export const egressDenied = (reason: string, message: string, details: Record<string, unknown>): ToolError =>
  toolError("EGRESS_DENIED", `${message} Nothing was sent to that address.`, { reason, ...details })

const tooLarge = (url: string, policy: EgressPolicy, seen: number | undefined) =>
  toolError(
    "RESPONSE_TOO_LARGE",
    `The response of ${url} is larger than maxFetchBytes (${policy.maxBytes} bytes)${seen === undefined ? "" : `: it announced ${seen} bytes`}; reading stopped there. The user can raise maxFetchBytes.`,
    {
      url,
      maxFetchBytes: policy.maxBytes,
      setting: "maxFetchBytes",
      ...defined({ contentLength: seen })
    }
  )

const transportFailure = (label: string, url: string, cause: unknown): ToolError => {
  const denial = findEgressDenial(cause)
  if (denial !== undefined) {
    return egressDenied(
      denial.verdict.class === "metadata" ? "metadata" : "address",
      `Refused ${url}: ${denial.message}`,
      {
        url,
        host: denial.hostname,
        address: denial.verdict.address,
        addressClass: denial.verdict.class
      }
    )
  }
  const text =
    cause instanceof Error
      ? `${cause.message}${cause.cause instanceof Error ? `: ${cause.cause.message}` : ""}`
      : String(cause)
  return toolError(
    "PROVIDER_FAILED",
    `${label} could not be reached for ${url} (${text.slice(0, 300)}). Try again later or use another source.`,
    {
      provider: label,
      url
    }
  )
}

/** One hop: request `url` without following redirects and read its body under the cap. */
const hop = <R>(
  client: HttpClient.HttpClient.With<HttpClientError.HttpClientError, Scope.Scope>,
  url: string,
  request: EgressRequest<R>
) =>
  Effect.scoped(
    Effect.gen(function* () {
      // identity: the cap counts the bytes read, and a body must never need a decompressor to be checked.
      const headers: Record<string, string> = { "user-agent": request.policy.userAgent, "accept-encoding": "identity" }
      if (request.accept !== undefined) headers["accept"] = request.accept
      const response = yield* client
        .execute(HttpClientRequest.get(url, { headers }))
        .pipe(
          Effect.mapError((error) =>
            transportFailure(request.label, url, error.reason === "Transport" ? error.cause : error)
          )
        )
      const responseHeaders = response.headers as Readonly<Record<string, string>>
      if (REDIRECTS.has(response.status) && responseHeaders["location"] !== undefined) {
        return {
          url,
          status: response.status,
          headers: responseHeaders,
          body: new Uint8Array(),
          redirects: []
        } as EgressResponse
      }
      const refused = request.inspect?.(response.status, responseHeaders, url)
      if (refused !== undefined) return yield* Effect.fail(refused)
      const announced = Number(responseHeaders["content-length"])
      if (Number.isFinite(announced) && announced > request.policy.maxBytes)
        return yield* Effect.fail(tooLarge(url, request.policy, announced))
      const chunks: Array<Uint8Array> = []
      let total = 0
      yield* response.stream.pipe(
        Stream.mapError((error) => transportFailure(request.label, url, error.cause ?? error)),
        Stream.runForEach((chunk) => {
          total += chunk.length
          if (total > request.policy.maxBytes) return Effect.fail(tooLarge(url, request.policy, undefined))
          chunks.push(chunk)
          return Effect.void
        })
      )
      const body = new Uint8Array(total)
      let at = 0
      for (const chunk of chunks) {
        body.set(chunk, at)
        at += chunk.length
      }
      return { url, status: response.status, headers: responseHeaders, body, redirects: [] } as EgressResponse
    })
  )

/**
 * GET `url` under the egress policy. Fails with EGRESS_DENIED (details.reason: scheme, length,
 * credentials, address, metadata, redirects, or whatever `beforeHop` says), RESPONSE_TOO_LARGE,
 * TIMEOUT, or PROVIDER_FAILED naming `label`. Statuses other than redirects are returned, not failed.
 */
export const egressGet = <R = never>(
  url: string,
  request: EgressRequest<R>
): Effect.Effect<EgressResponse, ToolError, HttpClient.HttpClient | R> =>
  Effect.gen(function* () {
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.withTracerPropagation(false), HttpClient.withScope)
    const redirects: Array<string> = []
    let current = url
    for (;;) {
      const verdict = checkUrl(current, request.policy)
      if (!verdict.ok) {
        const reason = verdict.addressClass === "metadata" ? "metadata" : verdict.reason
        return yield* Effect.fail(
          egressDenied(
            reason,
            `Refused ${redirects.length > 0 ? `the redirect from ${redirects.at(-1)} to ` : ""}${current.slice(0, 500)}: ${verdict.message}`,
            {
              url: current.slice(0, 2000),
              ...(redirects.length > 0 ? { redirects } : {}),
              ...(verdict.address === undefined ? {} : { address: verdict.address, addressClass: verdict.addressClass })
            }
          )
        )
      }
      current = verdict.url
      if (request.beforeHop !== undefined) yield* request.beforeHop(current)
      const answer = yield* hop(client, current, request)
      const location = answer.headers["location"]
      if (!REDIRECTS.has(answer.status) || location === undefined) return { ...answer, redirects }
      redirects.push(current)
      if (redirects.length > request.policy.maxRedirects) {
        return yield* Effect.fail(
          egressDenied("redirects", `Refused ${url}: it redirected more than ${request.policy.maxRedirects} times.`, {
            url,
            redirects
          })
        )
      }
      const next = resolveLocation(location, current)
      if (next === undefined) {
        return yield* Effect.fail(
          toolError(
            "PROVIDER_FAILED",
            `${request.label} redirected ${current} to an invalid location "${location.slice(0, 200)}".`,
            { provider: request.label, url: current }
          )
        )
      }
      current = next
    }
  }).pipe(
    Effect.timeoutFail({
      duration: Duration.millis(request.policy.timeoutMs),
      onTimeout: () =>
        toolError(
          "TIMEOUT",
          `${request.label} did not answer ${url} within fetchTimeoutMs (${request.policy.timeoutMs} ms); the request was abandoned.`,
          {
            provider: request.label,
            url,
            setting: "fetchTimeoutMs"
          }
        )
    })
  )
