/**
 * gRPC over TLS (spec 7.1: production deployments must encrypt gRPC): `effect-a2a serve` with A2A_TLS_CERT /
 * A2A_TLS_KEY and --grpc-port serves gRPC over TLS with the same certificate, and its card lists the interface as
 * `https://host:port`. Our client, trusting the test CA (GrpcTransport.layerWith), reaches the agent through it; a
 * plaintext client cannot; with A2A_TLS_CLIENT_CERT=require only a client with a certificate the CA issued gets
 * in, and with A2A_AUTH=mtls that certificate is the caller over gRPC as over HTTPS. Test certificates:
 * test/fixtures/tls.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import { readFileSync } from "node:fs"
import { get } from "node:https"
import { fileURLToPath } from "node:url"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { userText } from "../../src/client/Messages.ts"
import * as GrpcServer from "../../src/grpc/GrpcServer.ts"
import * as GrpcTransport from "../../src/grpc/GrpcTransport.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as ServeProcess from "../fixtures/ServeProcess.ts"

const tls = (name: string) => fileURLToPath(new URL(`../fixtures/tls/${name}`, import.meta.url))
const pem = (name: string) => readFileSync(tls(name), "utf8")

/** A GET over HTTPS trusting the test CA, with a client certificate when given: its status and body. */
const httpsGet = (url: string, client?: string) =>
  Effect.promise(() =>
    new Promise<{ readonly status: number; readonly body: string }>((resolve, reject) => {
      get(url, {
        ca: pem("ca.pem"),
        headers: { "a2a-version": "1.0" },
        ...(client !== undefined ? { cert: pem(`${client}.pem`), key: pem(`${client}.key`) } : {})
      }, (res) => {
        let body = ""
        res.on("data", (chunk: Buffer) => (body += chunk.toString()))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
      }).on("error", reject)
    })
  )

/** The card over HTTPS. */
const cardOf = (base: string, client?: string) =>
  Effect.map(httpsGet(`${base}/.well-known/agent-card.json`, client), (r) => JSON.parse(r.body) as v1.AgentCard)

/** One SendMessage over the card's gRPC interface, with these channel settings; its exit. */
const sendOverGrpc = (card: v1.AgentCard, tlsOptions: GrpcTransport.TlsOptions | undefined) =>
  Effect.gen(function*() {
    const iface = card.supportedInterfaces.find((i) => i.protocolBinding === "GRPC")!
    const factory = yield* GrpcTransport.makeFactoryWith({ tls: tlsOptions })
    const transport = factory.make({ interface: iface, url: iface.url, httpClient: yield* HttpClient.HttpClient })
    const client = A2AClient.fromTransport(card, iface, transport, { timeout: "5 seconds" })
    return yield* Effect.exit(client.sendMessage({ message: userText("quick 5") }))
  }).pipe(
    Effect.scoped,
    Effect.provide(Layer.succeed(HttpClient.HttpClient, HttpClient.make(() => Effect.die("unused"))))
  )

const serverTls = { A2A_TLS_CERT: tls("server.pem"), A2A_TLS_KEY: tls("server.key") }

/** Channel settings trusting the test CA, with a client's certificate when named. */
const channel = (client?: "client" | "stranger"): GrpcTransport.TlsOptions => ({
  ca: pem("ca.pem"),
  ...(client !== undefined ? { cert: pem(`${client}.pem`), key: Redacted.make(pem(`${client}.key`)) } : {})
})

describe("effect-a2a serve: gRPC over TLS", () => {
  it.live(
    "HTTPS and gRPC with one certificate; the card lists https://; a plaintext client gets nothing",
    () =>
      Effect.gen(function*() {
        const served = yield* ServeProcess.start(serverTls, ["--memory", "--grpc-port", "0"])
        const card = yield* cardOf(served.base)
        const grpc = card.supportedInterfaces.find((i) => i.protocolBinding === "GRPC")
        assert.match(grpc?.url ?? "", /^https:\/\/(127\.0\.0\.1|localhost):\d+$/)

        const reply = yield* sendOverGrpc(card, channel())
        assert.isTrue(
          Exit.isSuccess(reply) && "task" in reply.value && reply.value.task.status.state === "TASK_STATE_COMPLETED",
          String(reply)
        )
        // Node's trusted roots do not include the test CA: the TLS handshake fails, as a transport error.
        const untrusted = yield* sendOverGrpc(card, undefined)
        assert.isTrue(Exit.isFailure(untrusted))
        assert.include(String(Exit.isFailure(untrusted) ? untrusted.cause : ""), "A2ATransportError")
        // a plaintext channel to the TLS port
        const plain = yield* sendOverGrpc({
          ...card,
          supportedInterfaces: [{ ...grpc!, url: grpc!.url.replace(/^https:\/\//, "") }]
        }, undefined)
        assert.isTrue(Exit.isFailure(plain))
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "A2A_TLS_CLIENT_CERT=require: only a client with a certificate the CA issued is served",
    () =>
      Effect.gen(function*() {
        const served = yield* ServeProcess.start(
          { ...serverTls, A2A_TLS_CA: tls("ca.pem"), A2A_TLS_CLIENT_CERT: "require" },
          ["--memory", "--grpc-port", "0"]
        )
        const card = yield* cardOf(served.base, "client")
        const withCertificate = yield* sendOverGrpc(card, channel("client"))
        assert.isTrue(Exit.isSuccess(withCertificate), String(withCertificate))
        const without = yield* sendOverGrpc(card, channel())
        assert.isTrue(Exit.isFailure(without))
        const stranger = yield* sendOverGrpc(card, channel("stranger"))
        assert.isTrue(Exit.isFailure(stranger))
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "A2A_AUTH=mtls: the client certificate is the caller over gRPC, the same one as over HTTPS",
    () =>
      Effect.gen(function*() {
        const served = yield* ServeProcess.start(
          { ...serverTls, A2A_TLS_CA: tls("ca.pem"), A2A_TLS_CLIENT_CERT: "require", A2A_AUTH: "mtls" },
          ["--memory", "--grpc-port", "0"]
        )
        const card = yield* cardOf(served.base, "client")
        const sent = yield* sendOverGrpc(card, channel("client"))
        assert.isTrue(Exit.isSuccess(sent), String(sent))
        const taskId = Exit.isSuccess(sent) && "task" in sent.value ? sent.value.task.id : ""
        // the task is the certificate holder's: found over HTTPS with the same certificate
        const found = yield* httpsGet(`${served.base}/tasks/${taskId}`, "client")
        assert.strictEqual(found.status, 200, found.body)
      }).pipe(Effect.scoped),
    60_000
  )

  it.effect("a certificate TLS cannot use fails the start with a GrpcServerError naming the problem", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.scoped(GrpcServer.make({
        host: "127.0.0.1",
        port: 0,
        tls: { cert: "not a certificate", key: Redacted.make(pem("server.key")) }
      })))
      assert.strictEqual(error._tag, "GrpcServerError")
      assert.include(error.message, "PEM")
    }).pipe(Effect.provide(A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() }))))
})
