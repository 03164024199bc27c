/**
 * UNAVAILABLE (spec 3.3.2, "System Errors": temporary unavailability, with retry guidance) in every binding's
 * terms, and read back by the client: HTTP 503, gRPC UNAVAILABLE, JSON-RPC -32603 told apart from InternalError by
 * its ErrorInfo reason, each with a google.rpc.RetryInfo detail.
 */
import { assert, describe, it } from "@effect/vitest"
import * as A2AError from "../../src/protocol/A2AError.ts"

const unavailable = new A2AError.Unavailable({ message: "Task storage is unreachable", retryAfterSeconds: 2 })

describe("Unavailable", () => {
  it("maps to HTTP 503, gRPC UNAVAILABLE and JSON-RPC -32603 with reason UNAVAILABLE and a retry delay", () => {
    const http = A2AError.toHttpError(unavailable)
    assert.strictEqual(http.status, 503)
    assert.strictEqual(http.body.error.status, "UNAVAILABLE")
    const rpc = A2AError.toJsonRpcError(unavailable)
    assert.strictEqual(rpc.code, -32603)
    assert.deepStrictEqual(rpc.data, [
      { "@type": A2AError.ERROR_INFO_TYPE, reason: "UNAVAILABLE", domain: A2AError.ERROR_DOMAIN },
      { "@type": A2AError.RETRY_INFO_TYPE, retryDelay: "2s" }
    ])
    assert.strictEqual(A2AError.errorTable.Unavailable.grpcStatus, "UNAVAILABLE")
  })

  it("is read back as Unavailable from each binding, with its retry delay", () => {
    const fromRpc = A2AError.fromJsonRpcError(A2AError.toJsonRpcError(unavailable))
    const fromHttp = A2AError.fromHttpError(503, A2AError.toHttpError(unavailable).body)
    const fromGrpc = A2AError.fromGrpcStatus("UNAVAILABLE", unavailable.message, A2AError.detailsOf(unavailable))
    for (const error of [fromRpc, fromHttp, fromGrpc]) {
      assert.strictEqual(error._tag, "Unavailable")
      assert.strictEqual(error.message, unavailable.message)
      assert.strictEqual(error._tag === "Unavailable" ? error.retryAfterSeconds : undefined, 2)
      assert.isUndefined(error.details)
    }
    // Without an ErrorInfo, the status alone says it.
    assert.strictEqual(A2AError.fromHttpError(503, {})._tag, "Unavailable")
    assert.strictEqual(A2AError.fromGrpcStatus("UNAVAILABLE", "down", [])._tag, "Unavailable")
  })

  it("leaves -32603 without that reason an InternalError, and a reason never overrides another code", () => {
    const internal = A2AError.toJsonRpcError(new A2AError.InternalError({ message: "boom" }))
    assert.strictEqual(A2AError.fromJsonRpcError(internal)._tag, "InternalError")
    assert.strictEqual(A2AError.fromJsonRpcError({ code: -32603, message: "boom" })._tag, "InternalError")
    const mismatched = {
      code: -32001,
      message: "gone",
      data: [{ "@type": A2AError.ERROR_INFO_TYPE, reason: "UNAVAILABLE", domain: A2AError.ERROR_DOMAIN }]
    }
    assert.strictEqual(A2AError.fromJsonRpcError(mismatched)._tag, "TaskNotFound")
    // An unknown code still falls back to the reason.
    assert.strictEqual(A2AError.fromJsonRpcError({ ...mismatched, code: -32099 })._tag, "Unavailable")
  })
})
