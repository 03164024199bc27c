/**
 * Round trips of the 0.3 <-> 1.0 translation, as properties over values drawn from the generated Schemas.
 *
 * For every 1.0 value x: `toV1(fromV1(x))` equals `expressible(x)`, where `expressible` is the documented loss
 * (the fields 0.3 cannot carry, dropped or defaulted) written out independently here; on values 0.3 can
 * express, `expressible` is the identity, so the round trip is too. Every intermediate 0.3 value is checked
 * against the generated 0.3 Schema. The reverse direction (0.3 -> 1.0 -> 0.3) is checked the same way.
 * The lossy cases are also listed one by one in Lossy.test.ts.
 */
import { describe, it } from "@effect/vitest"
import { Arbitrary, Schema } from "effect"
import { deepStrictEqual } from "node:assert"
import * as v0_3 from "../../src/protocol/generated/v0_3.ts"
import * as v1 from "../../src/protocol/generated/v1.ts"
import * as AgentCards from "../../src/v0_3/protocol/AgentCards.ts"
import * as Messages from "../../src/v0_3/protocol/Messages.ts"
import * as PushConfigs from "../../src/v0_3/protocol/PushConfigs.ts"
import * as Requests from "../../src/v0_3/protocol/Requests.ts"
import * as Tasks from "../../src/v0_3/protocol/Tasks.ts"
import { normalizeBase64 } from "../../src/v0_3/protocol/WireInput.ts"

const same = (actual: unknown, expected: unknown) => deepStrictEqual(structuredClone(actual), structuredClone(expected))

/** Asserts a translated value is a valid 0.3 value, returning it. */
const valid03 = <S extends Schema.Top>(schema: S) => {
  const is = Schema.is(schema)
  return <A>(value: A): A => {
    if (!is(value)) {
      throw new Error(`not a valid 0.3 ${String(schema.ast.annotations?.["identifier"])}: ${JSON.stringify(value)}`)
    }
    return value
  }
}

const FLAG = Messages.DATA_PART_COMPAT_FLAG
const without = <A extends object, K extends string>(a: A, ...keys: ReadonlyArray<K>): Omit<A, K> => {
  const out: Record<string, unknown> = { ...(a as Record<string, unknown>) }
  for (const key of keys) delete out[key]
  return out as Omit<A, K>
}
const isObject = (u: unknown) => typeof u === "object" && u !== null && !Array.isArray(u)

// The flag key is reserved on data parts (see Lossy.test.ts); the generators stay clear of it.
const noFlag = (part: v1.Part | v0_3.Part) =>
  !("data" in part) || part.metadata === undefined || !Object.hasOwn(part.metadata, FLAG)
const partsWithoutFlag = (parts: ReadonlyArray<v1.Part>) => parts.every(noFlag)

// --- 1.0 values as 0.3 can carry them ---

const expressiblePart = (part: v1.Part): v1.Part => {
  if ("raw" in part || "url" in part) return part
  const stripped = without(part, "mediaType", "filename") as v1.Part
  if (
    "data" in stripped && !isObject(stripped.data) && stripped.metadata !== undefined &&
    Object.keys(stripped.metadata).length === 0
  ) return without(stripped, "metadata")
  return stripped
}

const expressibleMessage = (unspecified: v1.Role) => (m: v1.Message): v1.Message => ({
  ...m,
  role: m.role === "ROLE_UNSPECIFIED" ? unspecified : m.role,
  parts: m.parts.map(expressiblePart)
})
const expressibleAgentMessage = expressibleMessage("ROLE_AGENT")

const expressibleStatus = (s: v1.TaskStatus): v1.TaskStatus =>
  s.message === undefined ? s : { ...s, message: expressibleAgentMessage(s.message) }

const expressibleArtifact = (a: v1.Artifact): v1.Artifact => ({ ...a, parts: a.parts.map(expressiblePart) })

// The A2A 1.1 draft's generation fields (Task, both update events, GetTask's currentGeneration, the send's
// ifGenerationMatch) have no place in 0.3.
const expressibleTask = (t: v1.Task): v1.Task => ({
  ...without(t, "generation"),
  contextId: t.contextId ?? "",
  status: expressibleStatus(t.status),
  ...(t.history !== undefined ? { history: t.history.map(expressibleAgentMessage) } : {}),
  ...(t.artifacts !== undefined ? { artifacts: t.artifacts.map(expressibleArtifact) } : {})
})

const expressibleStream = (e: v1.StreamResponse): v1.StreamResponse =>
  "task" in e
    ? { task: expressibleTask(e.task) }
    : "message" in e
    ? { message: expressibleAgentMessage(e.message) }
    : "statusUpdate" in e
    ? { statusUpdate: { ...without(e.statusUpdate, "generation"), status: expressibleStatus(e.statusUpdate.status) } }
    : {
      artifactUpdate: {
        ...without(e.artifactUpdate, "generation"),
        artifact: expressibleArtifact(e.artifactUpdate.artifact)
      }
    }

const expressiblePushConfig = (c: v1.TaskPushNotificationConfig): v1.TaskPushNotificationConfig => ({
  ...without(c, "tenant"),
  taskId: c.taskId ?? ""
})

const expressibleSendRequest = (r: v1.SendMessageRequest): v1.SendMessageRequest => {
  const base = without(r, "tenant")
  const config = r.configuration
  const push = config?.taskPushNotificationConfig
  return {
    ...base,
    message: expressibleMessage("ROLE_USER")(r.message),
    ...(config === undefined ? {} : {
      configuration: {
        ...without(config, "ifGenerationMatch"),
        ...(push === undefined ? {} : { taskPushNotificationConfig: without(push, "tenant", "taskId") })
      }
    })
  }
}

const lowerLocations = ["cookie", "header", "query"]

const expressibleScheme = (s: v1.SecurityScheme): v1.SecurityScheme | undefined => {
  if ("apiKeySecurityScheme" in s) {
    const location = s.apiKeySecurityScheme.location.toLowerCase()
    return {
      apiKeySecurityScheme: {
        ...s.apiKeySecurityScheme,
        location: lowerLocations.includes(location) ? location : "header"
      }
    }
  }
  if ("oauth2SecurityScheme" in s) {
    const flows = s.oauth2SecurityScheme.flows
    const expressed: v1.OAuthFlows | undefined = "authorizationCode" in flows
      ? { authorizationCode: without(flows.authorizationCode, "pkceRequired") }
      : "implicit" in flows
      ? {
        implicit: {
          ...flows.implicit,
          authorizationUrl: flows.implicit.authorizationUrl ?? "",
          scopes: flows.implicit.scopes ?? {}
        }
      }
      : "password" in flows
      ? {
        password: { ...flows.password, tokenUrl: flows.password.tokenUrl ?? "", scopes: flows.password.scopes ?? {} }
      }
      : "deviceCode" in flows
      ? undefined
      : flows
    return expressed === undefined
      ? undefined
      : { oauth2SecurityScheme: { ...s.oauth2SecurityScheme, flows: expressed } }
  }
  return s
}

const expressibleRequirement = (r: v1.SecurityRequirement): v1.SecurityRequirement => ({
  schemes: Object.fromEntries(Object.entries(r.schemes ?? {}).map(([k, v]) => [k, { list: v.list ?? [] }]))
})

const expressibleCard = (card: v1.AgentCard): v1.AgentCard => {
  const legacy = card.supportedInterfaces.filter((i) => AgentCards.isLegacyVersion(i.protocolVersion))
  const endpoints = legacy.length > 0 ? legacy : card.supportedInterfaces
  const main = endpoints[0]!
  const sameAsMain = (i: v1.AgentInterface) =>
    i.url === main.url && i.protocolBinding.toUpperCase() === main.protocolBinding.toUpperCase()
  // 0.3 lists each endpoint (binding and URL) once, the first of its kind.
  const seen = new Set<string>()
  const distinct = endpoints.filter((i) => {
    const key = `${i.protocolBinding.toUpperCase()} ${i.url}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  const interfaces = [main, ...distinct.filter((i) => !sameAsMain(i))].map((i) => ({
    url: i.url,
    protocolBinding: i.protocolBinding,
    protocolVersion: "0.3"
  }))
  const schemes: Record<string, v1.SecurityScheme> = {}
  for (const [name, scheme] of Object.entries(card.securitySchemes ?? {})) {
    const expressed = expressibleScheme(scheme)
    if (expressed !== undefined) schemes[name] = expressed
  }
  const capabilities = card.capabilities
  return {
    ...card,
    supportedInterfaces: interfaces,
    capabilities: {
      ...capabilities,
      ...(capabilities.extensions !== undefined
        ? { extensions: capabilities.extensions.filter((e) => e.uri !== undefined) }
        : {})
    },
    skills: card.skills.map((skill) =>
      skill.securityRequirements === undefined
        ? skill
        : { ...skill, securityRequirements: skill.securityRequirements.map(expressibleRequirement) }
    ),
    ...(card.securitySchemes !== undefined ? { securitySchemes: schemes } : {}),
    ...(card.securityRequirements !== undefined
      ? { securityRequirements: card.securityRequirements.map(expressibleRequirement) }
      : {})
  }
}

// --- Generators ---

const parts = Arbitrary.filter(Arbitrary.schema(v1.Part), noFlag)
const messages = Arbitrary.filter(Arbitrary.schema(v1.Message), (m) => partsWithoutFlag(m.parts))
const statuses = Arbitrary.filter(
  Arbitrary.schema(v1.TaskStatus),
  (s) => s.message === undefined || partsWithoutFlag(s.message.parts)
)
const artifacts = Arbitrary.filter(Arbitrary.schema(v1.Artifact), (a) => partsWithoutFlag(a.parts))
const taskHasFlag = (t: v1.Task) =>
  !(t.history ?? []).every((m) => partsWithoutFlag(m.parts)) ||
  !(t.artifacts ?? []).every((a) => partsWithoutFlag(a.parts)) ||
  (t.status.message !== undefined && !partsWithoutFlag(t.status.message.parts))
const tasks = Arbitrary.filter(Arbitrary.schema(v1.Task), (t) => !taskHasFlag(t))
const streamEvents = Arbitrary.filter(Arbitrary.schema(v1.StreamResponse), (e) =>
  "task" in e
    ? !taskHasFlag(e.task)
    : "message" in e
    ? partsWithoutFlag(e.message.parts)
    : "statusUpdate" in e
    ? e.statusUpdate.status.message === undefined || partsWithoutFlag(e.statusUpdate.status.message.parts)
    : partsWithoutFlag(e.artifactUpdate.artifact.parts))
const sendRequests = Arbitrary.filter(Arbitrary.schema(v1.SendMessageRequest), (r) => partsWithoutFlag(r.message.parts))

// Cards with the optional fields that carry translation rules always present, and interfaces of both versions.
const richCards = Arbitrary.map(
  Arbitrary.all({
    card: Arbitrary.schema(v1.AgentCard),
    versions: Arbitrary.schema(Schema.Array(Schema.Literals(["0.3", "0.3.0", "1.0"]))),
    extended: Arbitrary.schema(Schema.Boolean),
    schemes: Arbitrary.schema(Schema.Record(Schema.String, v1.SecurityScheme)),
    requirements: Arbitrary.schema(Schema.Array(v1.SecurityRequirement)),
    extensions: Arbitrary.schema(Schema.Array(v1.AgentExtension))
  }),
  ({ card, extended, extensions, requirements, schemes, versions }): v1.AgentCard => ({
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((i, n) => ({
      ...i,
      protocolVersion: versions[n] ?? i.protocolVersion
    })),
    capabilities: { ...card.capabilities, extendedAgentCard: extended, extensions },
    securitySchemes: schemes,
    securityRequirements: requirements
  })
)

const CARD_RUNS = { arbitrary: { runs: 60 } }

describe("1.0 -> 0.3 -> 1.0", () => {
  it.prop("Part", [parts], ([part]) => {
    const wire = valid03(v0_3.Part)(Messages.fromV1Part(part))
    same(Messages.toV1Part(wire), expressiblePart(part))
  })

  it.prop("Message", [messages], ([message]) => {
    const wire = valid03(v0_3.Message)(Messages.fromV1Message(message))
    same(Messages.toV1Message(wire), expressibleAgentMessage(message))
  })

  it.prop("TaskStatus", [statuses], ([status]) => {
    const wire = valid03(v0_3.TaskStatus)(Tasks.fromV1TaskStatus(status))
    same(Tasks.toV1TaskStatus(wire), expressibleStatus(status))
  })

  it.prop("Artifact", [artifacts], ([artifact]) => {
    const wire = valid03(v0_3.Artifact)(Tasks.fromV1Artifact(artifact))
    same(Tasks.toV1Artifact(wire), expressibleArtifact(artifact))
  })

  it.prop("Task", [tasks], ([task]) => {
    const wire = valid03(v0_3.Task)(Tasks.fromV1Task(task))
    same(Tasks.toV1Task(wire), expressibleTask(task))
  })

  it.prop("StreamResponse (every event kind) and SendMessageResponse", [streamEvents], ([event]) => {
    const wire = valid03(v0_3.SendStreamingMessageSuccessResponse.fields.result)(Tasks.fromV1StreamResponse(event))
    same(Tasks.toV1StreamResponse(wire), expressibleStream(event))
    if ("task" in event || "message" in event) {
      const response: v1.SendMessageResponse = "task" in event ? { task: event.task } : { message: event.message }
      const result = valid03(v0_3.SendMessageSuccessResponse.fields.result)(Tasks.fromV1SendMessageResponse(response))
      same(Tasks.toV1SendMessageResponse(result), expressibleStream(response))
    }
  })

  it.prop("TaskPushNotificationConfig", [v1.TaskPushNotificationConfig], ([config]) => {
    const wire = valid03(v0_3.TaskPushNotificationConfig)(PushConfigs.fromV1TaskPushConfig(config))
    same(PushConfigs.toV1TaskPushConfig(wire), expressiblePushConfig(config))
  })

  it.prop("SendMessageRequest", [sendRequests], ([request]) => {
    const wire = valid03(v0_3.MessageSendParams)(Requests.fromV1SendMessageRequest(request))
    same(Requests.toV1SendMessageRequest(wire), expressibleSendRequest(request))
  })

  it.prop(
    "GetTask / CancelTask / SubscribeToTask requests",
    [v1.GetTaskRequest, v1.CancelTaskRequest, v1.SubscribeToTaskRequest],
    ([get, cancel, subscribe]) => {
      same(
        Requests.toV1GetTaskRequest(valid03(v0_3.TaskQueryParams)(Requests.fromV1GetTaskRequest(get))),
        without(get, "tenant", "currentGeneration")
      )
      same(
        Requests.toV1CancelTaskRequest(valid03(v0_3.TaskIdParams)(Requests.fromV1CancelTaskRequest(cancel))),
        without(cancel, "tenant")
      )
      same(
        Requests.toV1SubscribeRequest(valid03(v0_3.TaskIdParams)(Requests.fromV1SubscribeRequest(subscribe))),
        without(subscribe, "tenant")
      )
    }
  )

  it.prop(
    "push config get / list / delete requests",
    [
      v1.GetTaskPushNotificationConfigRequest,
      v1.ListTaskPushNotificationConfigsRequest,
      v1.DeleteTaskPushNotificationConfigRequest
    ],
    ([get, list, del]) => {
      const getWire = valid03(v0_3.GetTaskPushNotificationConfigParams)(Requests.fromV1GetPushConfig(get))
      same(Requests.toV1GetPushConfig(getWire), without(get, "tenant"))
      const listWire = valid03(v0_3.ListTaskPushNotificationConfigParams)(Requests.fromV1ListPushConfigs(list))
      // 0.3 lists have no pages: the server edge walks them all.
      same(Requests.toV1ListPushConfigs(listWire), { taskId: list.taskId })
      const delWire = valid03(v0_3.DeleteTaskPushNotificationConfigParams)(Requests.fromV1DeletePushConfig(del))
      same(Requests.toV1DeletePushConfig(delWire), without(del, "tenant"))
    }
  )

  it.prop("SecurityScheme", [v1.SecurityScheme], ([scheme]) => {
    const wire = valid03(v0_3.SecurityScheme)(AgentCards.fromV1SecurityScheme(scheme))
    same(AgentCards.toV1SecurityScheme(wire), expressibleScheme(scheme))
  })

  it.prop("AgentCard", [v1.AgentCard], ([card]) => {
    const wire = valid03(v0_3.AgentCard)(AgentCards.fromV1AgentCard(card))
    same(AgentCards.toV1AgentCard(wire), expressibleCard(card))
  }, CARD_RUNS)

  it.prop("AgentCard with security, extensions and 0.3 / 1.0 interfaces", [richCards], ([card]) => {
    const wire = valid03(v0_3.AgentCard)(AgentCards.fromV1AgentCard(card))
    same(AgentCards.toV1AgentCard(wire), expressibleCard(card))
  }, CARD_RUNS)

  it.prop("the hybrid card is a valid 0.3 card carrying every 1.0 interface", [v1.AgentCard], ([card]) => {
    const hybrid = valid03(v0_3.AgentCard)(AgentCards.hybridCard(card))
    same(hybrid.supportedInterfaces, card.supportedInterfaces)
    if (!Schema.is(Schema.Array(v1.AgentInterface))(hybrid.supportedInterfaces)) throw new Error("bad interfaces")
  }, CARD_RUNS)
})

// --- 0.3 values as 1.0 can carry them ---

const expressible03Part = (part: v0_3.Part): v0_3.Part =>
  part.kind === "file" && "bytes" in part.file
    ? { ...part, file: { ...part.file, bytes: normalizeBase64(part.file.bytes) ?? part.file.bytes } }
    : part

const expressible03Message = (m: v0_3.Message): v0_3.Message => ({ ...m, parts: m.parts.map(expressible03Part) })

const expressible03Status = (s: v0_3.TaskStatus): v0_3.TaskStatus => {
  const { timestamp, ...rest } = s
  const normalized = timestamp === undefined ? undefined : Tasks.toV1Timestamp(timestamp)
  return {
    ...rest,
    ...(rest.message !== undefined ? { message: expressible03Message(rest.message) } : {}),
    ...(normalized !== undefined ? { timestamp: normalized } : {})
  }
}

const expressible03Artifact = (a: v0_3.Artifact): v0_3.Artifact => ({ ...a, parts: a.parts.map(expressible03Part) })

const expressible03Task = (t: v0_3.Task): v0_3.Task => ({
  ...t,
  status: expressible03Status(t.status),
  ...(t.history !== undefined ? { history: t.history.map(expressible03Message) } : {}),
  ...(t.artifacts !== undefined ? { artifacts: t.artifacts.map(expressible03Artifact) } : {})
})

const expressible03Event = (e: Tasks.StreamResult): Tasks.StreamResult => {
  switch (e.kind) {
    case "task":
      return expressible03Task(e)
    case "message":
      return expressible03Message(e)
    case "status-update":
      return {
        ...e,
        status: expressible03Status(e.status),
        final: Tasks.finalForSend(Tasks.toV1TaskState(e.status.state))
      }
    case "artifact-update":
      return { ...e, artifact: expressible03Artifact(e.artifact) }
  }
}

const expressible03Auth = (
  a: v0_3.PushNotificationAuthenticationInfo
): v0_3.PushNotificationAuthenticationInfo => ({
  ...a,
  schemes: a.schemes[0] === undefined || a.schemes[0] === "" ? [] : [a.schemes[0]]
})

const expressible03PushConfig = (c: v0_3.PushNotificationConfig): v0_3.PushNotificationConfig =>
  c.authentication === undefined ? c : { ...c, authentication: expressible03Auth(c.authentication) }

const expressible03Flows = (flows: v0_3.OAuthFlows): v0_3.OAuthFlows | undefined =>
  flows.authorizationCode !== undefined
    ? { authorizationCode: flows.authorizationCode }
    : flows.clientCredentials !== undefined
    ? { clientCredentials: flows.clientCredentials }
    : flows.password !== undefined
    ? { password: flows.password }
    : flows.implicit !== undefined
    ? { implicit: flows.implicit }
    : undefined

const expressible03Card = (card: v0_3.AgentCard): v0_3.AgentCard => {
  const main = { url: card.url, transport: card.preferredTransport ?? "JSONRPC" }
  // each interface once (the first of those naming the same URL and transport), the main one first
  const seen = new Set([`${main.transport.toUpperCase()} ${main.url}`])
  const additional = (card.additionalInterfaces ?? []).filter((i) => {
    const key = `${i.transport.toUpperCase()} ${i.url}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  const schemes: Record<string, v0_3.SecurityScheme> = {}
  for (const [name, scheme] of Object.entries(card.securitySchemes ?? {})) {
    if (scheme.type !== "oauth2") schemes[name] = scheme
    else {
      const flows = expressible03Flows(scheme.flows)
      if (flows !== undefined) schemes[name] = { ...scheme, flows }
    }
  }
  return {
    ...card,
    protocolVersion: AgentCards.PROTOCOL_VERSION,
    preferredTransport: main.transport,
    additionalInterfaces: [main, ...additional],
    capabilities: without(card.capabilities, "stateTransitionHistory"),
    ...(card.securitySchemes !== undefined ? { securitySchemes: schemes } : {})
  }
}

// 0.3 cards (protocolVersion 0.3) with the optional fields that carry translation rules always present.
const cards03 = Arbitrary.map(
  Arbitrary.all({
    card: Arbitrary.schema(v0_3.AgentCard),
    extended: Arbitrary.schema(Schema.Boolean),
    history: Arbitrary.schema(Schema.Boolean),
    transport: Arbitrary.schema(Schema.Literals(["JSONRPC", "HTTP+JSON", "GRPC"])),
    additional: Arbitrary.schema(Schema.Array(v0_3.AgentInterface)),
    schemes: Arbitrary.schema(Schema.Record(Schema.String, v0_3.SecurityScheme)),
    security: Arbitrary.schema(Schema.Array(Schema.Record(Schema.String, Schema.Array(Schema.String))))
  }),
  ({ additional, card, extended, history, schemes, security, transport }): v0_3.AgentCard => ({
    ...card,
    protocolVersion: "0.3.0",
    preferredTransport: transport,
    // the main endpoint listed again, as 0.3 recommends
    additionalInterfaces: [{ url: card.url, transport }, ...additional],
    capabilities: { ...card.capabilities, stateTransitionHistory: history },
    supportsAuthenticatedExtendedCard: extended,
    securitySchemes: schemes,
    security
  })
)
const parts03 = Arbitrary.filter(Arbitrary.schema(v0_3.Part), noFlag)
const events03 = Arbitrary.filter(Arbitrary.schema(v0_3.SendStreamingMessageSuccessResponse.fields.result), (e) => {
  const all: Array<v0_3.Part> = []
  const collect = (m: v0_3.Message | undefined) => m !== undefined && all.push(...m.parts)
  switch (e.kind) {
    case "message":
      collect(e)
      break
    case "task":
      collect(e.status.message)
      e.history?.forEach(collect)
      e.artifacts?.forEach((a) => all.push(...a.parts))
      break
    case "status-update":
      collect(e.status.message)
      break
    case "artifact-update":
      all.push(...e.artifact.parts)
  }
  return all.every(noFlag)
})

describe("0.3 -> 1.0 -> 0.3", () => {
  it.prop("Part", [parts03], ([part]) => {
    same(Messages.fromV1Part(Messages.toV1Part(part)), expressible03Part(part))
  })

  it.prop("stream events, tasks and messages", [events03], ([event]) => {
    same(Tasks.fromV1StreamResponse(Tasks.toV1StreamResponse(event)), expressible03Event(event))
  })

  it.prop("TaskPushNotificationConfig", [v0_3.TaskPushNotificationConfig], ([config]) => {
    same(PushConfigs.fromV1TaskPushConfig(PushConfigs.toV1TaskPushConfig(config)), {
      ...config,
      pushNotificationConfig: expressible03PushConfig(config.pushNotificationConfig)
    })
  })

  it.prop("MessageSendParams", [v0_3.MessageSendParams], ([params]) => {
    if (!params.message.parts.every(noFlag)) return
    const push = params.configuration?.pushNotificationConfig
    same(Requests.fromV1SendMessageRequest(Requests.toV1SendMessageRequest(params)), {
      ...params,
      message: expressible03Message(params.message),
      ...(params.configuration === undefined ? {} : {
        configuration: {
          ...params.configuration,
          ...(push === undefined ? {} : { pushNotificationConfig: expressible03PushConfig(push) })
        }
      })
    })
  })

  it.prop("AgentCard", [cards03], ([card]) => {
    same(AgentCards.fromV1AgentCard(AgentCards.toV1AgentCard(card)), expressible03Card(card))
  }, CARD_RUNS)
})
