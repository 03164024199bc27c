/**
 * A request the gateway built and did not send, shown as the admin API's preview shows it: method, URL (its query
 * too), headers (the body's content type among them, as it goes on the wire) and body (JSON as a value, anything
 * else as text), every secret masked. The A2A preview and the REST passthrough's share it, so both show a request
 * the same way.
 */
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Redacted from "effect/Redacted"
import * as GatewayCredentials from "../GatewayCredentials.ts"

/**
 * The request, secrets masked.
 *
 * @since 0.2.0
 * @category models
 */
export interface Shown {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
}

const bodyText = (request: HttpClientRequest.HttpClientRequest): string =>
  request.body._tag === "Uint8Array"
    ? new TextDecoder().decode(request.body.body)
    : request.body._tag === "Raw" && typeof request.body.body === "string"
    ? request.body.body
    : ""

/**
 * Shows `request` with every one of `secrets` masked.
 *
 * @since 0.2.0
 * @category utils
 */
export const show = (request: HttpClientRequest.HttpClientRequest, secrets: ReadonlyArray<string>): Shown => {
  const mask = (text: string) => GatewayCredentials.mask(text, secrets)
  const maskedBody = mask(bodyText(request))
  let body: unknown = maskedBody
  try {
    body = JSON.parse(maskedBody)
  } catch {
    // not JSON: shown as text
  }
  const query = request.urlParams.params.length > 0
    ? `?${
      mask(
        new URLSearchParams(
          request.urlParams.params.map(([k, v]): [string, string] => [k, typeof v === "string" ? v : Redacted.value(v)])
        ).toString()
      )
    }`
    : ""
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(request.headers).map(([key, value]) => [key, mask(value)])
  )
  // the body's content type is a header on the wire, though the request keeps it with the body
  const contentType = "contentType" in request.body ? request.body.contentType : undefined
  if (contentType !== undefined && headers["content-type"] === undefined) headers["content-type"] = contentType
  return { method: request.method, url: mask(request.url) + query, headers, body }
}
