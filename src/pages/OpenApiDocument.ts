/**
 * The OpenAPI 3.1 description of the HTTP+JSON/REST binding (spec 11), for users of other stacks who generate a
 * client from it. Derived, never written by hand: the paths from the operations table (protocol/Operations: each
 * route's method, path template, query parameters and body), the schemas from the generated 1.0 Schemas and the
 * error body of protocol/A2AError through Effect's JSON Schema compiler. What the binding serves and what this
 * document says come from the same table, so they cannot drift apart.
 *
 * What the document says beyond the table:
 * - bodies and results in their canonical ProtoJSON form (camelCase names, enums as strings); the binding also
 *   reads the proto (snake_case) names, enum numbers and int32 strings, as ProtoJSON parsers do;
 * - a request's path fields are not required again in its body (the path wins);
 * - the routes below a `/{tenant}` segment (HttpBindingOptions.tenantPaths) as a second server, whose `tenant`
 *   variable is that segment;
 * - streams as `text/event-stream`: the `x-sse-events` extension of the media type names each event's schema
 *   (`message`: a StreamResponse; `error`: the error body of a failure after the stream began);
 * - errors as google.rpc.Status with its ErrorInfo (`components/responses`, one per HTTP status of the error
 *   table, with the reasons it carries);
 * - with an agent card: its name, version and description, its HTTP+JSON 1.0 interface as the server, and its
 *   security schemes and requirements.
 *
 * `gateway` is a gateway's document (effect-a2a/gateway): its admin API, its front door with the binding's routes below
 * each agent, and its MCP endpoint.
 *
 * `npm run openapi` writes the document of no particular agent to `openapi.json`; `ApiDocs.documentRoutes`
 * serves the agent's own at `/openapi.json`, and `ApiDocs.routes` a page that shows it.
 *
 * @example
 * ```ts
 * import { OpenApiDocument } from "effect-a2a/pages"
 *
 * const document = OpenApiDocument.make({ serverUrl: "https://agent.example.com/a2a" })
 * document.paths["/tasks/{id}:cancel"]?.post?.operationId // "CancelTask"
 * ```
 *
 * @since 0.1.0
 */
import * as JsonSchema from "effect/JsonSchema"
import type * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as SchemaRepresentation from "effect/SchemaRepresentation"
import { A2A_JSON_CONTENT_TYPE, JSON_CONTENT_TYPE } from "../http/internal/HttpErrors.ts"
import * as A2AError from "../protocol/A2AError.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import * as OpenApiSecurity from "../protocol/internal/OpenApiSecurity.ts"
import * as Operations from "../protocol/Operations.ts"
import * as Version from "../protocol/Version.ts"

// --- The document's shape (the parts of OpenAPI 3.1 it uses) ---

/**
 * A JSON Schema object, as the document embeds it.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonSchemaObject = JsonSchema.JsonSchema

/**
 * An OpenAPI 3.1 document, as far as this module writes one.
 *
 * @since 0.1.0
 * @category models
 */
export interface Document {
  readonly openapi: "3.1.0"
  readonly info: { readonly title: string; readonly version: string; readonly description: string }
  readonly servers: ReadonlyArray<Server>
  readonly tags: ReadonlyArray<{ readonly name: string }>
  readonly paths: Readonly<Record<string, PathItem>>
  readonly components: {
    readonly schemas: Readonly<Record<string, JsonSchemaObject>>
    readonly parameters: Readonly<Record<string, Parameter>>
    readonly responses: Readonly<Record<string, Response>>
    readonly securitySchemes?: Readonly<Record<string, SecurityScheme>> | undefined
  }
  readonly security?: ReadonlyArray<Readonly<Record<string, ReadonlyArray<string>>>> | undefined
}

/**
 * A server the operations are reached at (OpenAPI Server Object).
 *
 * @since 0.1.0
 * @category models
 */
export interface Server {
  readonly url: string
  readonly description: string
  readonly variables?: Readonly<Record<string, { readonly default: string; readonly description: string }>>
}

/**
 * The operations of one path, by HTTP method (OpenAPI Path Item Object).
 *
 * @since 0.1.0
 * @category models
 */
export type PathItem = { readonly [M in "get" | "post" | "delete"]?: OperationObject }

/**
 * One operation (OpenAPI Operation Object): its id, parameters, request body and responses.
 *
 * @since 0.1.0
 * @category models
 */
export interface OperationObject {
  readonly operationId: string
  readonly summary: string
  readonly description?: string | undefined
  readonly tags: ReadonlyArray<string>
  readonly parameters: ReadonlyArray<Parameter | Ref>
  readonly requestBody?: { readonly required: true; readonly content: Content } | undefined
  readonly responses: Readonly<Record<string, Response | Ref>>
  /** The operation's own security requirements (the gateway's admin routes: its admin token). */
  readonly security?: ReadonlyArray<Readonly<Record<string, ReadonlyArray<string>>>> | undefined
}

/**
 * A path or query parameter of an operation (OpenAPI Parameter Object).
 *
 * @since 0.1.0
 * @category models
 */
export interface Parameter {
  readonly name: string
  readonly in: "path" | "query" | "header"
  readonly required: boolean
  readonly description?: string | undefined
  readonly schema: JsonSchemaObject
  readonly style?: "form" | undefined
  readonly explode?: boolean | undefined
}

/**
 * A reference to a component of the document (OpenAPI Reference Object).
 *
 * @since 0.1.0
 * @category models
 */
export interface Ref {
  readonly $ref: string
}

/**
 * A body in one media type, with its schema (OpenAPI Media Type Object).
 *
 * @since 0.1.0
 * @category models
 */
export interface MediaType {
  readonly schema: JsonSchemaObject
  /** For `text/event-stream`: the schema of each event's data, by SSE event type. */
  readonly "x-sse-events"?: Readonly<Record<string, JsonSchemaObject>> | undefined
}

/**
 * A body by media type.
 *
 * @since 0.1.0
 * @category models
 */
export type Content = Readonly<Record<string, MediaType>>

/**
 * One response of an operation (OpenAPI Response Object).
 *
 * @since 0.1.0
 * @category models
 */
export interface Response {
  readonly description: string
  readonly headers?: Readonly<Record<string, { readonly description: string; readonly schema: JsonSchemaObject }>>
  readonly content?: Content | undefined
}

/**
 * A security scheme of the agent card, as OpenAPI spells it (OpenAPI Security Scheme Object).
 *
 * @since 0.1.0
 * @category models
 */
export type SecurityScheme =
  | { readonly type: "apiKey"; readonly name: string; readonly in: string; readonly description?: string }
  | { readonly type: "http"; readonly scheme: string; readonly bearerFormat?: string; readonly description?: string }
  | { readonly type: "oauth2"; readonly flows: Readonly<Record<string, unknown>>; readonly description?: string }
  | { readonly type: "openIdConnect"; readonly openIdConnectUrl: string; readonly description?: string }
  | { readonly type: "mutualTLS"; readonly description?: string }

/**
 * What the document is made for: an agent card, or none (then the server is a `{baseUrl}` variable).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * The agent card the document describes: its name, version and description head the document, its first 1.0
   * HTTP+JSON interface is the server, and its security schemes and requirements are the document's.
   */
  readonly card?: v1.AgentCard | undefined
  /** The base URL of the REST routes when no card names one. Default a `{baseUrl}` server variable. */
  readonly serverUrl?: string | undefined
  /** Whether the routes are also served below a `/{tenant}` segment (HttpBindingOptions.tenantPaths). Default true. */
  readonly tenantPaths?: boolean | undefined
}

// --- Schemas: the generated ones, through Effect's JSON Schema compiler ---

const SCHEMAS = "#/components/schemas/"

const ref = (name: string): Ref => ({ $ref: name })

/**
 * Each root schema's JSON Schema (a `$ref` for those with an identifier) and the definitions they share. The type
 * side is the wire's canonical form: the generated Schemas decode ProtoJSON's looser input into it, and encode it
 * as is.
 */
const compile = (roots: ReadonlyArray<Schema.Top>) => {
  const [first, ...rest] = roots.map((schema) => SchemaAST.toType(schema.ast))
  const multi = JsonSchema.toMultiDocumentOpenApi3_1(
    SchemaRepresentation.toJsonSchemaMultiDocument(SchemaRepresentation.toRepresentations([first!, ...rest]))
  )
  return { schemas: multi.schemas, definitions: multi.definitions }
}

/** A schema with its `$ref`s to components followed, once. */
const resolve = (schema: JsonSchemaObject, definitions: JsonSchema.Definitions): JsonSchemaObject => {
  const target = schema.$ref
  return typeof target === "string" && target.startsWith(SCHEMAS)
    ? definitions[target.slice(SCHEMAS.length)] ?? schema
    : schema
}

/** The components a part of the document names, and those they name in turn. */
const reachable = (from: unknown, definitions: JsonSchema.Definitions): Set<string> => {
  const found = new Set<string>()
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) { for (const item of value) visit(item) }
    else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (key === "$ref" && typeof item === "string" && item.startsWith(SCHEMAS)) {
          const name = item.slice(SCHEMAS.length)
          if (!found.has(name)) {
            found.add(name)
            visit(definitions[name])
          }
        } else visit(item)
      }
    }
  }
  visit(from)
  return found
}

// --- Parameters and bodies, from the table's routes ---

const pathFields = (path: string): ReadonlyArray<string> => [...path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]!)

/** How each query form is written when the request Schema says nothing more precise (spec 11.5). */
const queryFormSchema: Record<Operations.QueryForm, JsonSchemaObject> = {
  string: { type: "string" },
  int32: { type: "integer", format: "int32" },
  int64: { type: "string", format: "int64" },
  bool: { type: "boolean" },
  strings: { type: "array", items: { type: "string" } }
}

const propertiesOf = (schema: JsonSchemaObject): Readonly<Record<string, JsonSchemaObject>> =>
  typeof schema.properties === "object" && schema.properties !== null
    ? schema.properties as Record<string, JsonSchemaObject>
    : {}

/** The body of a route with path fields: its request without them (the path's values win over the body's). */
const withoutFields = (schema: JsonSchemaObject, fields: ReadonlyArray<string>): JsonSchemaObject => {
  const properties = { ...propertiesOf(schema) }
  for (const field of fields) delete properties[field]
  const required = Array.isArray(schema.required)
    ? (schema.required as ReadonlyArray<string>).filter((name) => !fields.includes(name))
    : []
  return { ...schema, properties, required }
}

const jsonContent = (schema: JsonSchemaObject): Content => ({
  [A2A_JSON_CONTENT_TYPE]: { schema },
  [JSON_CONTENT_TYPE]: { schema }
})

/** The operations' tag: what they act on. */
const tagOf = (path: string): string =>
  path.startsWith("/message")
    ? "Messages"
    : path.includes("/pushNotificationConfigs")
    ? "Push notification configs"
    : path.startsWith("/tasks")
    ? "Tasks"
    : "Agent card"

// --- Errors, from the error table ---

const STATUS_TEXT: Record<number, string> = {
  400: "Bad request",
  401: "Unauthenticated",
  403: "Permission denied",
  404: "Not found",
  413: "Request body too large",
  415: "Unsupported media type",
  500: "Internal error",
  503: "Unavailable"
}

/** Too large (413), not JSON (415). */
const BODY_REFUSALS: ReadonlyArray<number> = [413, 415]

/** The HTTP statuses of the error table, with the ErrorInfo reasons each carries. */
const errorStatuses = (): ReadonlyMap<number, ReadonlyArray<string>> => {
  const out = new Map<number, Array<string>>()
  for (const mapping of Object.values(A2AError.errorTable)) {
    const reasons = out.get(mapping.httpStatus) ?? []
    reasons.push(mapping.reason)
    out.set(mapping.httpStatus, reasons)
  }
  // Transport refusals of a body (HttpErrors): an InvalidRequest with a status of its own.
  for (const status of BODY_REFUSALS) out.set(status, [A2AError.errorTable.InvalidRequest.reason])
  return new Map([...out].sort(([a], [b]) => a - b))
}

const errorResponseName = (status: number) => `Error${status}`

const errorResponses = (
  statuses: ReadonlyMap<number, ReadonlyArray<string>>,
  errorBody: JsonSchemaObject
): Record<string, Response> =>
  Object.fromEntries(
    [...statuses].map(([status, reasons]) => [errorResponseName(status), {
      description: `${STATUS_TEXT[status] ?? `HTTP ${status}`}: a google.rpc.Status whose ErrorInfo reason is ${
        reasons.join(", ")
      }.`,
      ...(status === 401
        ? {
          headers: {
            "WWW-Authenticate": { description: "The credentials the agent asks for.", schema: { type: "string" } }
          }
        }
        : {}),
      content: jsonContent(errorBody)
    }])
  )

// --- Security, from the agent card ---

/**
 * A card's scheme in OpenAPI 3.1's form (OpenApiSecurity, the form A2A 0.3 cards carry), without what 3.1 lacks:
 * `oauth2MetadataUrl`, and a flow without the URL it must name. An OAuth scheme left with no flow (device code)
 * is described by what the client then sends: its access token, as a bearer token.
 */
const securityScheme = (scheme: v1.SecurityScheme): SecurityScheme => {
  const converted = OpenApiSecurity.fromV1(scheme)
  if (converted.type !== "oauth2") return converted
  const { flows, oauth2MetadataUrl: _, ...rest } = converted
  const usable = Object.fromEntries(
    Object.entries(flows).filter(([, flow]) =>
      !("authorizationUrl" in flow && flow.authorizationUrl === "") && !("tokenUrl" in flow && flow.tokenUrl === "")
    )
  )
  if (Object.keys(usable).length > 0) return { ...rest, flows: usable }
  const named = "oauth2SecurityScheme" in scheme ? scheme.oauth2SecurityScheme.flows : flows
  return {
    type: "http",
    scheme: "bearer",
    description: [rest.description, `An OAuth 2.0 access token (${JSON.stringify(named)}).`].filter(Boolean).join(" ")
  }
}

const securityOf = (card: v1.AgentCard | undefined) => ({
  schemes: Object.fromEntries(
    Object.entries(card?.securitySchemes ?? {}).map(([name, scheme]) => [name, securityScheme(scheme)])
  ),
  requirements: (card?.securityRequirements ?? []).map(OpenApiSecurity.fromV1Requirement)
})

// --- Servers ---

const TENANT_DESCRIPTION = "The same routes below a tenant's path segment (spec 11.3)."

const serversOf = (options: Options): ReadonlyArray<Server> => {
  const fromCard = options.card?.supportedInterfaces?.find((i) =>
    i.protocolBinding === "HTTP+JSON" && i.protocolVersion === Version.CURRENT
  )?.url
  const base = fromCard ?? options.serverUrl
  const variables = base === undefined
    ? { baseUrl: { default: "http://localhost:8080", description: "The agent's HTTP+JSON interface URL." } }
    : undefined
  const url = base ?? "{baseUrl}"
  const main: Server = {
    url,
    description: "The agent's HTTP+JSON interface (A2A 1.0).",
    ...(variables !== undefined ? { variables } : {})
  }
  if (options.tenantPaths === false) return [main]
  return [main, {
    url: `${url}/{tenant}`,
    description: TENANT_DESCRIPTION,
    variables: { ...variables, tenant: { default: "default", description: "The tenant (its path segment)." } }
  }]
}

// --- The document ---

const VERSION_HEADER: Parameter = {
  name: "A2A-Version",
  in: "header",
  required: false,
  description: `The protocol version of the request (spec 3.6.2). Send "${Version.CURRENT}"; without it the server ` +
    `reads the request as A2A 0.3 where it serves 0.3.`,
  schema: { type: "string", examples: [Version.CURRENT] }
}

const EXTENSIONS_HEADER: Parameter = {
  name: "A2A-Extensions",
  in: "header",
  required: false,
  description: "The extension URIs the client asks for, comma-separated (spec 3.2.6).",
  schema: { type: "string" }
}

// google.protobuf.Empty: `{}` on the wire (its Schema's type side, a Struct of no fields, admits any non-null value).
const EMPTY: JsonSchemaObject = { type: "object", properties: {}, additionalProperties: false }

const PARAMETERS = "#/components/parameters/"
const RESPONSES = "#/components/responses/"

const STREAM_DESCRIPTION = "Server-sent events: each `data:` is one StreamResponse (JSON). A failure after the " +
  "stream began is an `error` event carrying the error body; one before is an error response."

/**
 * The OpenAPI 3.1 document of the HTTP+JSON/REST binding. Pure: the same options give the same document.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Document => {
  const ops = Operations.all
  const roots: Array<Schema.Top> = [A2AError.HttpErrorBody]
  for (const op of ops) roots.push(op.request, op.response)
  const { definitions, schemas } = compile(roots)
  const statuses = errorStatuses()
  const [errorBody] = schemas
  const requestOf = (index: number) => schemas[1 + 2 * index]!
  const responseOf = (index: number) => schemas[2 + 2 * index]!

  const paths: Record<string, Record<string, OperationObject>> = {}
  ops.forEach((op, index) => {
    const route = op.rest
    const request = resolve(requestOf(index), definitions)
    const fields = pathFields(route.path)
    const bodySchema = fields.length === 0 ? requestOf(index) : withoutFields(request, fields)
    const properties = propertiesOf(request)
    const parameters: Array<Parameter | Ref> = fields.map((name) => ({
      name,
      in: "path",
      required: true,
      description: "Percent-encoded (a `:` in it as `%3A`).",
      schema: properties[name] ?? { type: "string" }
    }))
    for (const [name, form] of Object.entries(route.query ?? {})) {
      parameters.push({
        name,
        in: "query",
        required: false,
        schema: properties[name] ?? queryFormSchema[form],
        ...(form === "strings" ? { style: "form", explode: true } : {})
      })
    }
    parameters.push(ref(`${PARAMETERS}A2AVersion`), ref(`${PARAMETERS}A2AExtensions`))
    // Every status of the error table; the body refusals only where there is a body.
    const errors = [...statuses.keys()].filter((status) => route.body || !BODY_REFUSALS.includes(status))
    const success: Response = op.streaming
      ? {
        description: "The event stream.",
        content: {
          "text/event-stream": {
            schema: { type: "string", description: STREAM_DESCRIPTION },
            "x-sse-events": { message: responseOf(index), error: errorBody! }
          }
        }
      }
      : {
        description: "The result.",
        content: jsonContent(op.response === Operations.Empty ? EMPTY : responseOf(index))
      }
    const operation = (operationId: string, body: boolean, description?: string): OperationObject => ({
      operationId,
      summary: op.summary,
      ...(description !== undefined ? { description } : {}),
      tags: [tagOf(route.path)],
      parameters,
      ...(body ? { requestBody: { required: true, content: jsonContent(bodySchema) } } : {}),
      responses: {
        "200": success,
        ...Object.fromEntries(errors.map((status) => [String(status), ref(`${RESPONSES}${errorResponseName(status)}`)]))
      }
    })
    const item = paths[route.path] ??= {}
    item[route.method.toLowerCase()] = operation(op.name, route.body)
    for (const method of route.alsoAnsweredOn ?? []) {
      // The proto's binding of the route, where the spec's text differs: the same operation, the path its request.
      item[method.toLowerCase()] = operation(
        `${op.name}${method[0]}${method.slice(1).toLowerCase()}`,
        false,
        `The proto's ${method} binding of ${op.name}, which servers also answer; clients use ${route.method}.`
      )
    }
  })

  const responses = errorResponses(statuses, errorBody!)
  // Only the definitions the document names (the GET requests' are read into parameters, not referenced).
  const used = reachable({ paths, responses }, definitions)
  const { requirements, schemes } = securityOf(options.card)
  const card = options.card
  return {
    openapi: "3.1.0",
    info: {
      title: card !== undefined ? `${card.name} (A2A HTTP+JSON)` : "A2A HTTP+JSON binding",
      version: card?.version ?? Version.CURRENT,
      description: (card !== undefined ? `${card.description}\n\n` : "") +
        `The HTTP+JSON/REST binding of the A2A protocol ${Version.CURRENT} (spec 11), as effect-a2a serves it.`
    },
    servers: serversOf(options),
    tags: [...new Set(ops.map((op) => tagOf(op.rest.path)))].map((name) => ({ name })),
    paths,
    components: {
      schemas: Object.fromEntries(
        Object.keys(definitions).filter((name) => used.has(name)).sort().map((name) => [name, definitions[name]!])
      ),
      parameters: { A2AVersion: VERSION_HEADER, A2AExtensions: EXTENSIONS_HEADER },
      responses,
      ...(Object.keys(schemes).length > 0 ? { securitySchemes: schemes } : {})
    },
    ...(requirements.length > 0 ? { security: requirements } : {})
  }
}

/**
 * The document as the server serves it and `npm run openapi` writes it: indented JSON, ending in a newline.
 *
 * @since 0.1.0
 * @category utils
 */
export const toJson = (document: Document): string => `${JSON.stringify(document, null, 2)}\n`
