/** The HttpClient of a host without a network binding: every request fails clearly, nothing is sent. */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const noNetworkLayer: Layer.Layer<HttpClient.HttpClient> = Layer.succeed(
  HttpClient.HttpClient,
  HttpClient.make((request) =>
    Effect.fail(
      new HttpClientError.RequestError({
        request,
        reason: "Transport",
        cause: new Error("this host provides no network binding (HttpClient); web requests are unavailable here")
      })
    )
  )
)
