/**
 * The OpenAPI 3.1 document of a gateway (effect-a2a/gateway), built on the binding's (OpenApiDocument): the admin API (`/admin/agents`
 * and below, behind the admin token as a bearer), the front door (the catalog at `/agents`, each agent's card, its
 * JSON-RPC endpoint, and the binding's HTTP+JSON routes below `/agents/{name}`) and the MCP endpoint (`/mcp`). The
 * admin API's bodies are described here, field by field as the gateway reads and answers them (its tests hold the
 * two together), so that the pages do not load the gateway to describe it.
 *
 * `ApiDocs.gatewayDocumentRoutes` serves it; `make` gives it to write or check elsewhere.
 *
 * @example
 * ```ts
 * import { GatewayOpenApiDocument, OpenApiDocument } from "effect-a2a/pages"
 *
 * // the document of a gateway at https://gw.example.com, its admin API on, no MCP endpoint
 * const json = OpenApiDocument.toJson(GatewayOpenApiDocument.make({ serverUrl: "https://gw.example.com", mcp: false }))
 * ```
 *
 * @since 0.2.0
 */
import * as Operations from "../protocol/Operations.ts"
import * as Version from "../protocol/Version.ts"
import * as OpenApiDocument from "./OpenApiDocument.ts"
import type {
  Content,
  Document,
  JsonSchemaObject as Json,
  OperationObject,
  Parameter,
  PathItem,
  Ref,
  Response
} from "./OpenApiDocument.ts"

/** The path parameter naming an agent. */
const NAME_PARAMETER: Parameter = {
  name: "name",
  in: "path",
  required: true,
  description: "The agent's name at the gateway.",
  schema: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$" }
}

/** The security scheme of the admin API. */
const ADMIN_SCHEME = "adminToken"

const SCHEMAS = "#/components/schemas/"
const ref = (name: string): Json => ({ $ref: `${SCHEMAS}${name}` })

/** The admin API's and the catalog's bodies, as components. */
const schemas: Readonly<Record<string, Json>> = {
  GatewayRegistration: {
    type: "object",
    description: "An agent to register: its URL (an A2A agent's base or card URL, or a plain JSON endpoint).",
    properties: {
      url: { type: "string", format: "uri", description: "The agent's base URL or card URL; the endpoint's URL." },
      name: { type: "string", description: "Its name at the gateway (default: from its card, URL-safe)." },
      kind: { type: "string", enum: ["a2a", "rest-passthrough"], default: "a2a" },
      credentials: {
        type: "object",
        description: "What the gateway sends the agent: {\"bearer\"}, {\"apiKey\"}, {\"basic\": {username, " +
          "password}}, {\"oauth2\": {tokenUrl?, clientId, clientSecret, scopes?}}, or keyed by the card's scheme " +
          "names. Sealed at rest, never shown again.",
        additionalProperties: true
      },
      allow: { type: "array", items: { type: "string" }, description: "The principals who may see and call it." }
    },
    required: ["url"],
    additionalProperties: false
  },
  GatewayHealth: {
    type: "object",
    properties: {
      reachable: { type: "boolean" },
      lastCardFetch: { type: "string", format: "date-time" },
      latencyMillis: { type: "number" },
      reason: { type: "string" }
    },
    required: ["reachable"]
  },
  GatewayAgent: {
    type: "object",
    description: "A registered agent as the admin API shows it: its credentials masked.",
    properties: {
      name: { type: "string" },
      url: { type: "string" },
      kind: { type: "string", enum: ["a2a", "rest-passthrough"] },
      allow: { type: ["array", "null"], items: { type: "string" } },
      credentials: {
        type: ["object", "null"],
        description: "The credentials' keys, every secret `***`.",
        additionalProperties: true
      },
      health: ref("GatewayHealth"),
      registeredAt: { type: "string", format: "date-time" },
      card: ref("AgentCard")
    },
    required: ["name", "url", "kind", "allow", "credentials", "health", "registeredAt", "card"]
  },
  GatewayAgentList: {
    type: "object",
    properties: { agents: { type: "array", items: ref("GatewayAgent") } },
    required: ["agents"]
  },
  GatewayRemoved: {
    type: "object",
    properties: {
      name: { type: "string" },
      url: { type: "string" },
      kind: { type: "string" },
      removed: { type: "boolean", const: true }
    },
    required: ["name", "url", "kind", "removed"]
  },
  GatewayPreview: {
    type: "object",
    description: "The request the gateway would send upstream for SendMessage (for a REST passthrough, the raw " +
      "POST its endpoint would get), every secret masked; nothing was sent.",
    properties: {
      name: { type: "string" },
      url: { type: "string" },
      kind: { type: "string" },
      request: {
        type: "object",
        properties: {
          method: { type: "string" },
          url: { type: "string" },
          headers: { type: "object", additionalProperties: { type: "string" } },
          body: { description: "The body: JSON as a value, anything else as text." }
        },
        required: ["method", "url", "headers", "body"]
      }
    },
    required: ["name", "url", "kind", "request"]
  },
  GatewayError: {
    type: "object",
    properties: {
      error: {
        type: "object",
        properties: {
          code: { type: "integer", description: "The HTTP status." },
          reason: {
            type: "string",
            description: "InvalidInput, SealingKeyMissing, Unauthenticated, AdminApiOff, AgentNotFound, " +
              "AgentExists, Unreachable, InvalidCard, CardSignature, NoCompatibleInterface, RegistryUnavailable."
          },
          message: { type: "string", description: "What went wrong, naming it (never a credential)." }
        },
        required: ["code", "reason", "message"]
      }
    },
    required: ["error"]
  },
  GatewayCatalog: {
    type: "object",
    properties: {
      agents: {
        type: "array",
        items: {
          type: "object",
          properties: {
            name: { type: "string" },
            url: { type: "string", description: "The agent's base URL at the gateway." },
            kind: { type: "string" },
            card: ref("AgentCard"),
            health: ref("GatewayHealth")
          },
          required: ["name", "url", "kind", "card", "health"]
        }
      }
    },
    required: ["agents"]
  }
}

const json = (schema: Json): Content => ({ "application/json": { schema } })

const adminError = (description: string): Response => ({ description, content: json(ref("GatewayError")) })

type Rest = Pick<OperationObject, "requestBody" | "responses"> & { readonly parameters?: OperationObject["parameters"] }

const ADMIN_ERRORS: Record<string, Response> = {
  "401": {
    ...adminError("Unauthenticated: no admin token, or the wrong one."),
    headers: { "WWW-Authenticate": { description: "Bearer, realm a2a-gateway-admin.", schema: { type: "string" } } }
  },
  "403": adminError("AdminApiOff: the gateway has no admin token configured."),
  "503": adminError("RegistryUnavailable: the registry's storage failed, or a stored credential cannot be opened.")
}

const NOT_FOUND: Record<string, Response> = { "404": adminError("AgentNotFound: no agent by that name.") }

const admin = (operationId: string, summary: string, rest: Rest): OperationObject => ({
  operationId,
  summary,
  tags: ["Gateway admin"],
  security: [{ [ADMIN_SCHEME]: [] }],
  parameters: [],
  ...rest
})

/** The admin API's paths. */
const adminPaths = (): Record<string, PathItem> => ({
  "/admin/agents": {
    get: admin("GatewayListAgents", "Lists the registered agents.", {
      parameters: [],
      responses: { "200": { description: "The agents.", content: json(ref("GatewayAgentList")) }, ...ADMIN_ERRORS }
    }),
    post: admin("GatewayRegisterAgent", "Registers an agent: its card fetched and checked, its credentials sealed.", {
      parameters: [],
      requestBody: { required: true, content: json(ref("GatewayRegistration")) },
      responses: {
        "201": { description: "The agent, registered.", content: json(ref("GatewayAgent")) },
        "400": adminError("InvalidInput or SealingKeyMissing: the registration names the problem."),
        ...ADMIN_ERRORS,
        "409": adminError("AgentExists: the name is taken."),
        "422": adminError("Unreachable, InvalidCard, CardSignature or NoCompatibleInterface: the agent's card.")
      }
    })
  },
  "/admin/agents/{name}": {
    get: admin("GatewayGetAgent", "The agent, its card fetched again now (health: reachable, latency).", {
      parameters: [NAME_PARAMETER],
      responses: {
        "200": { description: "The agent.", content: json(ref("GatewayAgent")) },
        ...ADMIN_ERRORS,
        ...NOT_FOUND
      }
    }),
    delete: admin("GatewayRemoveAgent", "Removes the agent.", {
      parameters: [NAME_PARAMETER],
      responses: {
        "200": { description: "The agent as it was.", content: json(ref("GatewayRemoved")) },
        ...ADMIN_ERRORS,
        ...NOT_FOUND
      }
    })
  },
  "/admin/agents/{name}/preview": {
    post: admin("GatewayPreview", "The exact upstream request SendMessage would send, secrets masked; nothing sent.", {
      parameters: [NAME_PARAMETER],
      requestBody: { required: true, content: json(ref("SendMessageRequest")) },
      responses: {
        "200": { description: "The request.", content: json(ref("GatewayPreview")) },
        "400": adminError("InvalidInput: the body is not SendMessage's params, or has nothing to send."),
        ...ADMIN_ERRORS,
        ...NOT_FOUND
      }
    })
  }
})

const frontDoor = (operationId: string, summary: string, rest: Rest): OperationObject => ({
  operationId,
  summary,
  tags: ["Gateway front door"],
  parameters: [],
  ...rest
})

// No such agent, or one the caller may not see: the same answer.
const HIDDEN: Record<string, Ref> = { "404": { $ref: "#/components/responses/Error404" } }

/** The front door's own paths (the binding's routes below `/agents/{name}` are added from the binding's document). */
const frontDoorPaths = (methods: ReadonlyArray<string>): Record<string, PathItem> => ({
  "/agents": {
    get: frontDoor("GatewayCatalog", "The agents the caller may see, with their cards as the gateway serves them.", {
      parameters: [{
        name: "skill",
        in: "query",
        required: false,
        description: "Only the agents with a skill of this tag.",
        schema: { type: "string" }
      }],
      responses: { "200": { description: "The catalog.", content: json(ref("GatewayCatalog")) } }
    })
  },
  "/agents/{name}/.well-known/agent-card.json": {
    get: frontDoor("GatewayAgentCard", "The agent's card: the upstream card, its interfaces the gateway's.", {
      parameters: [NAME_PARAMETER],
      responses: { "200": { description: "The card.", content: json(ref("AgentCard")) }, ...HIDDEN }
    })
  },
  "/agents/{name}": {
    post: frontDoor("GatewayJsonRpc", "The agent's JSON-RPC 2.0 endpoint: every A2A operation, forwarded.", {
      parameters: [NAME_PARAMETER],
      requestBody: {
        required: true,
        content: json({
          type: "object",
          properties: {
            jsonrpc: { const: "2.0" },
            id: { type: ["string", "integer", "null"] },
            method: { type: "string", enum: [...methods] },
            params: { type: "object", description: "The operation's request (as in the HTTP+JSON routes)." }
          },
          required: ["jsonrpc", "method"]
        })
      },
      responses: {
        "200": {
          description: "A JSON-RPC response, or for the streaming methods server-sent events of JSON-RPC responses.",
          content: {
            ...json({ type: "object", description: "A JSON-RPC 2.0 response: its result, or its error." }),
            "text/event-stream": { schema: { type: "string" } }
          }
        },
        ...HIDDEN
      }
    })
  }
})

const mcp = (operationId: string, summary: string, rest: Rest): OperationObject => ({
  operationId,
  summary,
  tags: ["MCP"],
  parameters: [{
    name: "Mcp-Session-Id",
    in: "header",
    required: false,
    description: "The session, once initialized.",
    schema: { type: "string" }
  }],
  ...rest
})

/** The MCP endpoint (streamable HTTP): the registry's agents as tools. */
const mcpPaths = (): Record<string, PathItem> => ({
  "/mcp": {
    post: mcp("McpMessage", "An MCP JSON-RPC message (tools/list, tools/call, ...): the agents as tools.", {
      requestBody: { required: true, content: json({ type: "object", description: "A JSON-RPC 2.0 message." }) },
      responses: {
        "200": {
          description: "The answer, as JSON or as server-sent events (progress, then the result).",
          content: { ...json({ type: "object" }), "text/event-stream": { schema: { type: "string" } } }
        },
        "202": { description: "A notification or response, accepted." }
      }
    }),
    get: mcp("McpStream", "The session's stream of server messages (notifications/tools/list_changed).", {
      responses: { "200": { description: "Server-sent events.", content: { "text/event-stream": { schema: {} } } } }
    }),
    delete: mcp("McpEndSession", "Ends the session.", { responses: { "200": { description: "Ended." } } })
  }
})

/** The gateway's document: the binding's (`binding`, without tenant paths) below each agent, and the rest. */
const document = (
  binding: Document,
  methods: ReadonlyArray<string>,
  options: Options
): Document => {
  const agentRoutes = Object.fromEntries(
    Object.entries(binding.paths).map(([path, item]): [string, PathItem] => [
      `/agents/{name}${path}`,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => [method, {
          ...operation,
          parameters: [NAME_PARAMETER, ...operation.parameters]
        }])
      )
    ])
  )
  const admin = options.admin !== false
  const mcp = options.mcp !== false
  const variables = options.serverUrl === undefined
    ? { variables: { baseUrl: { default: "http://127.0.0.1:8080", description: "The gateway's base URL." } } }
    : {}
  return {
    openapi: "3.1.0",
    info: {
      title: "A2A gateway",
      version: Version.CURRENT,
      description: "A registry of A2A agents behind one front door, as effect-a2a's gateway serves it: " +
        (admin ? "its admin API (the admin token as a bearer), " : "") +
        `every agent under /agents/{name} (its card, JSON-RPC, and the HTTP+JSON binding of A2A ${Version.CURRENT})` +
        (mcp ? ", and the agents as MCP tools at /mcp." : ".")
    },
    servers: [{ url: options.serverUrl ?? "{baseUrl}", description: "The gateway.", ...variables }],
    tags: [
      ...(admin ? [{ name: "Gateway admin" }] : []),
      { name: "Gateway front door" },
      ...binding.tags,
      ...(mcp ? [{ name: "MCP" }] : [])
    ],
    paths: {
      ...(admin ? adminPaths() : {}),
      ...frontDoorPaths(methods),
      ...agentRoutes,
      ...(mcp ? mcpPaths() : {})
    },
    components: {
      ...binding.components,
      schemas: { ...binding.components.schemas, ...schemas },
      ...(admin
        ? {
          securitySchemes: {
            [ADMIN_SCHEME]: {
              type: "http",
              scheme: "bearer",
              description: "The gateway's admin token (--admin-token, A2A_GATEWAY_ADMIN_TOKEN)."
            }
          }
        }
        : {})
    }
  }
}

/**
 * What a gateway serves, for its document (`make`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The gateway's base URL. Default a `{baseUrl}` server variable. */
  readonly serverUrl?: string | undefined
  /** Whether the admin API is on (an admin token is configured). Default true. */
  readonly admin?: boolean | undefined
  /** Whether the registry is served as MCP tools at `/mcp`. Default true. */
  readonly mcp?: boolean | undefined
}

/**
 * The OpenAPI 3.1 document of a gateway (effect-a2a/gateway): its admin API (behind the admin token, a bearer), its
 * front door (the catalog at `/agents`, each agent's card and JSON-RPC endpoint, and the HTTP+JSON binding's routes
 * below `/agents/{name}`, derived from the same operations table as `OpenApiDocument.make`) and, when served, its
 * MCP endpoint. The front door's callers authenticate with the gateway's own Auth, which the document does not know.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options = {}): Document =>
  document(OpenApiDocument.make({ tenantPaths: false }), Operations.all.map((op) => op.name), options)
