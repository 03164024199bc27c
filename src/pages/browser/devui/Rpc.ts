/**
 * The dev UI's A2A client (bundled into its script with app.ts): the wire JSON of A2A 1.0 as the page reads it,
 * every field optional since it comes from the network, and JSON-RPC calls and event streams over `fetch` to the
 * endpoint the card names, with the credentials the page holds (`Target`).
 */

// --- the wire JSON of A2A 1.0 ---------------------------------------------------------------------------------

export interface Part {
  readonly text?: string
  readonly data?: unknown
  readonly url?: string
  readonly raw?: string
  readonly filename?: string
  readonly mediaType?: string
}
export interface Message {
  readonly messageId?: string
  readonly role?: string
  readonly parts?: ReadonlyArray<Part>
  readonly contextId?: string
  readonly taskId?: string
}
export interface TaskStatus {
  readonly state: string
  readonly message?: Message
  readonly timestamp?: string
}
export interface Artifact {
  readonly artifactId: string
  readonly name?: string
  readonly parts?: ReadonlyArray<Part>
}
export interface Task {
  readonly id: string
  readonly contextId?: string
  readonly status: TaskStatus
  readonly history?: ReadonlyArray<Message>
  readonly artifacts?: ReadonlyArray<Artifact>
}
export interface StreamResponse {
  readonly message?: Message
  readonly task?: Task
  readonly statusUpdate?: { readonly taskId: string; readonly status: TaskStatus }
  readonly artifactUpdate?: { readonly taskId: string; readonly artifact: Artifact; readonly append?: boolean }
}
export interface ListTasksResponse {
  readonly tasks?: ReadonlyArray<Task>
  readonly nextPageToken?: string
}
export interface SecurityScheme {
  readonly mtlsSecurityScheme?: unknown
  readonly apiKeySecurityScheme?: { readonly location?: string; readonly name?: string }
}
export interface AgentCard {
  readonly name?: string
  readonly version?: string
  readonly description?: string
  readonly capabilities?: Record<string, unknown>
  readonly defaultInputModes?: ReadonlyArray<string>
  readonly defaultOutputModes?: ReadonlyArray<string>
  readonly securitySchemes?: Record<string, SecurityScheme>
  readonly supportedInterfaces?: ReadonlyArray<
    { readonly url: string; readonly protocolBinding?: string; readonly protocolVersion?: string }
  >
  readonly skills?: ReadonlyArray<
    {
      readonly id: string
      readonly name?: string
      readonly description?: string
      readonly examples?: ReadonlyArray<string>
    }
  >
}
export interface RpcError {
  readonly code?: number
  readonly message?: string
}
export interface RpcReply<A> {
  readonly result?: A
  readonly error?: RpcError
}

/** Why a request failed: an A2A error, a cut stream, an unreachable server, or an HTTP failure without an error. */
export interface Failure {
  readonly rpc?: RpcError
  readonly cut?: string
  readonly network?: string
  readonly status?: number
  readonly statusText?: string
  readonly body?: string
}

// --- JSON-RPC over fetch ------------------------------------------------------------------------------------

/** Where the calls go and with which headers: read anew for each call (the token field may change). */
export interface Target {
  readonly url: () => string
  readonly headers: () => Record<string, string>
}

/** The text of a thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error && error.message ? error.message : String(error)
}

/** A random UUID (version 4), for message and request ids. */
export function randomId() {
  const b = new Uint8Array(16)
  crypto.getRandomValues(b)
  b[6] = (b[6]! & 15) | 64
  b[8] = (b[8]! & 63) | 128
  const h = Array.from(b, (x) => (x + 256).toString(16).slice(1)).join("")
  return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20)
}

function rpcBody(method: string, params: unknown) {
  return JSON.stringify({ jsonrpc: "2.0", id: randomId(), method, params })
}

function post(target: Target, method: string, params: unknown): Promise<Response> {
  return fetch(target.url(), { method: "POST", headers: target.headers(), body: rpcBody(method, params) })
    .catch((error: unknown) => {
      throw { network: messageOf(error) } satisfies Failure
    })
}

function parseReply<A>(body: string): RpcReply<A> | null {
  try {
    return JSON.parse(body) as RpcReply<A>
  } catch {
    return null // not JSON
  }
}

// A JSON-RPC call; rejects with { rpc } for an A2A error, { status } for an HTTP failure without one.
export function call<A>(target: Target, method: string, params: unknown): Promise<A> {
  return post(target, method, params)
    .then((response) =>
      response.text().then((body) => {
        const json = parseReply<A>(body)
        if (json && json.error) throw { rpc: json.error, status: response.status } satisfies Failure
        if (!response.ok || !json || !("result" in json)) {
          throw { status: response.status, statusText: response.statusText, body: body.slice(0, 200) } satisfies Failure
        }
        return json.result as A
      })
    )
}

// SendStreamingMessage: calls onEvent with each StreamResponse as it arrives; resolves when the stream ends.
export function stream(
  target: Target,
  method: string,
  params: unknown,
  onEvent: (event: StreamResponse) => void
): Promise<void> {
  return post(target, method, params)
    .then((response) => {
      const type = response.headers.get("content-type") || ""
      if (type.indexOf("text/event-stream") < 0 || !response.body) {
        return response.text().then((body) => {
          const json = parseReply<StreamResponse>(body)
          if (json && json.error) throw { rpc: json.error, status: response.status } satisfies Failure
          if (json && json.result) {
            onEvent(json.result)
            return
          }
          throw { status: response.status, statusText: response.statusText, body: body.slice(0, 200) } satisfies Failure
        })
      }
      const reader = response.body.getReader()
      const decoder = new TextDecoder()
      let buffer = ""
      const dispatch = (block: string) => {
        const data = block.split(/\r?\n/).filter((l) => l.indexOf("data:") === 0)
          .map((l) => l.slice(5).replace(/^ /, "")).join("\n")
        if (!data) return
        const json = JSON.parse(data) as RpcReply<StreamResponse>
        if (json.error) throw { rpc: json.error, status: response.status } satisfies Failure
        onEvent(json.result!)
      }
      const pump = (): Promise<void> =>
        reader.read().catch((error: unknown) => {
          throw { cut: messageOf(error) } satisfies Failure
        }).then((chunk) => {
          if (chunk.done) {
            if (buffer.trim()) dispatch(buffer)
            return
          }
          buffer += decoder.decode(chunk.value, { stream: true })
          const blocks = buffer.split(/\r?\n\r?\n/)
          buffer = blocks.pop()!
          blocks.forEach(dispatch)
          return pump()
        })
      return pump()
    })
}
