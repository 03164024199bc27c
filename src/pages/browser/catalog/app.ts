/**
 * The gateway catalog's script (served as `app.js`; `npm run pages` bundles it into internal/GatewayUiScript.ts):
 * a client of the gateway's admin API (list, check, register, remove, preview) with the admin token the person
 * enters, and of the front door (an agent's card, then JSON-RPC 1.0 SendStreamingMessage or SendMessage), so it
 * sees what any caller sees. The token lives in this tab only (sessionStorage), never in the HTML. Everything shown
 * from the network is rendered with `textContent` and DOM nodes, never as markup.
 */
"use strict"
import { type AgentCard, call, type Failure, type Part, randomId, stream, type StreamResponse } from "../devui/Rpc.ts"
import { $, clearError, el, showErrorText } from "../Dom.ts"

/** An agent as the admin API shows it (credentials masked). */
interface Agent {
  readonly name: string
  readonly url: string
  readonly kind: string
  readonly health?: {
    readonly reachable?: boolean
    readonly lastCardFetch?: string
    readonly latencyMillis?: number
    readonly reason?: string
    readonly lastCall?: string
    readonly lastError?: { readonly at: string; readonly message: string }
  }
  readonly card?: AgentCard
}

/** The admin API's error body. */
interface AdminError {
  readonly error?: { readonly code?: number; readonly reason?: string; readonly message?: string }
}

const STORAGE_KEY = "effect-a2a-gateway-admin-token"

const meta = (name: string) => document.querySelector(`meta[name="${name}"]`)!.getAttribute("content")!
const adminPath = meta("a2a-admin-path")
const agentsPath = meta("a2a-agents-path")

const state = {
  selected: null as string | null,
  sending: false
}

function clear(node: Node) {
  while (node.firstChild) node.removeChild(node.firstChild)
}

function describe(error: unknown): string {
  const failure = (typeof error === "object" && error !== null ? error : {}) as Failure & { message?: string }
  if (failure.rpc) return String(failure.rpc.message || "error") + " (code " + failure.rpc.code + ")"
  if (failure.cut) return "the connection was cut (" + failure.cut + ")"
  if (failure.network) return "cannot reach the gateway (" + failure.network + ")"
  if (failure.status) {
    return "HTTP " + failure.status + " " + (failure.statusText || "") + (failure.body ? ": " + failure.body : "")
  }
  return failure.message ? failure.message : String(error)
}
function showError(what: string, error: unknown) {
  showErrorText(what + ": " + describe(error))
}

// --- the admin token: in this tab only ------------------------------------------------------------------------

function adminToken(): string {
  return sessionStorage.getItem(STORAGE_KEY) || ""
}

/** One admin API call: its JSON answer; rejects with an Error naming the gateway's reason. */
function admin<A>(method: string, path: string, body?: unknown): Promise<A> {
  const headers: Record<string, string> = { "authorization": "Bearer " + adminToken() }
  if (body !== undefined) headers["content-type"] = "application/json"
  const init: RequestInit = body === undefined ? { method, headers } : { method, headers, body: JSON.stringify(body) }
  return fetch(adminPath + path, init).catch((error: unknown) => {
    throw { network: error instanceof Error ? error.message : String(error) } satisfies Failure
  }).then((response) =>
    response.text().then((text) => {
      let json: unknown = null
      try {
        json = JSON.parse(text)
      } catch {
        json = null // not JSON: reported as text
      }
      if (!response.ok) {
        const e = (json as AdminError | null)?.error
        if (e && e.message) throw new Error(e.message + " (" + response.status + (e.reason ? " " + e.reason : "") + ")")
        throw { status: response.status, statusText: response.statusText, body: text.slice(0, 200) } satisfies Failure
      }
      return json as A
    })
  )
}

// --- the list ------------------------------------------------------------------------------------------------

function healthCell(agent: Agent) {
  const health = agent.health || {}
  const up = health.reachable === true
  return el("td", { className: "health-cell" }, [
    el("span", {
      className: "health " + (up ? "up" : "down"),
      "data-health": up ? "up" : "down",
      text: up ? "reachable" : "unreachable"
    }),
    !up && health.reason ? el("span", { className: "reason", text: health.reason }) : null,
    // What calls through the gateway showed, beside what the card fetch did: the last call, and the last one that
    // failed for the agent's sake (even when a later card fetch found it reachable again).
    health.lastCall
      ? el("span", { className: "last-call", text: "last call " + new Date(health.lastCall).toLocaleString() })
      : null,
    health.lastError
      ? el("span", {
        className: "last-error",
        text: "last error " + new Date(health.lastError.at).toLocaleString() + ": " + health.lastError.message
      })
      : null
  ])
}

/** What the agent can do, from its card: its skills' names. */
function skills(agent: Agent) {
  const names = ((agent.card && agent.card.skills) || []).map((skill) => skill.name || skill.id)
  return names.length === 0 ? null : el("span", { className: "skills", text: "Skills: " + names.join(", ") })
}

function row(agent: Agent) {
  const health = agent.health || {}
  const tr = el("tr", { "data-agent": agent.name, className: state.selected === agent.name ? "selected" : "" }, [
    el("td", null, [
      el("span", { className: "name mono", text: agent.name }),
      el("span", { className: "url", text: agent.url }),
      agent.card && agent.card.description
        ? el("span", { className: "description", text: agent.card.description })
        : null,
      skills(agent)
    ]),
    el("td", { className: "kind", text: agent.kind }),
    healthCell(agent),
    el("td", {
      className: "fetched",
      text: health.lastCardFetch ? new Date(health.lastCardFetch).toLocaleString() : "never"
    }),
    el("td", {
      className: "latency",
      text: typeof health.latencyMillis === "number" ? health.latencyMillis + " ms" : ""
    }),
    el("td", { className: "actions" }, [
      el("button", { type: "button", className: "check", text: "Check", onclick: () => check(agent.name) }),
      el("button", { type: "button", className: "select", text: "Try", onclick: () => select(agent.name) }),
      el("button", { type: "button", className: "remove danger", text: "Remove", onclick: () => remove(agent.name) })
    ])
  ])
  return tr
}

function render(agents: ReadonlyArray<Agent>) {
  const list = $("agent-list")
  clear(list)
  agents.forEach((agent) => list.appendChild(row(agent)))
  $("agent-table").hidden = agents.length === 0
  const empty = $("agents-empty")
  empty.hidden = agents.length > 0
  empty.textContent = "No agent is registered yet."
  if (state.selected !== null && !agents.some((a) => a.name === state.selected)) select(null)
}

function refresh(): Promise<void> {
  if (!adminToken()) {
    $("agents-empty").textContent = "Enter the admin token to see the registered agents."
    return Promise.resolve()
  }
  return admin<{ agents: ReadonlyArray<Agent> }>("GET", "/agents").then((answer) => {
    clearError()
    render(answer.agents)
  }).catch((error: unknown) => showError("Listing the agents", error))
}

/** Fetches the agent's card again now (its health as of now) and updates its row. */
function check(name: string) {
  admin<Agent>("GET", "/agents/" + encodeURIComponent(name)).then((agent) => {
    clearError()
    const old = document.querySelector(`tr[data-agent="${CSS.escape(name)}"]`)
    if (old) old.replaceWith(row(agent))
  }).catch((error: unknown) => showError("Checking " + name, error))
}

function remove(name: string) {
  if (!confirm("Remove the agent " + name + " from the gateway?")) return
  admin<unknown>("DELETE", "/agents/" + encodeURIComponent(name)).then(() => {
    clearError()
    return refresh()
  }).catch((error: unknown) => showError("Removing " + name, error))
}

// --- register ------------------------------------------------------------------------------------------------

const value = (id: string) => $<HTMLInputElement>(id).value.trim()

function showCredentialFields() {
  const kind = $<HTMLSelectElement>("reg-cred-kind").value
  $("cred-secret").hidden = kind !== "bearer" && kind !== "apiKey"
  $("cred-basic").hidden = kind !== "basic"
  $("cred-oauth2").hidden = kind !== "oauth2"
}

function credentials(): Record<string, unknown> | undefined {
  const kind = $<HTMLSelectElement>("reg-cred-kind").value
  if (kind === "bearer" || kind === "apiKey") return { [kind]: value("reg-secret") }
  if (kind === "basic") return { basic: { username: value("reg-username"), password: value("reg-password") } }
  if (kind === "oauth2") {
    const scopes = value("reg-scopes").split(/\s+/).filter((s) => s !== "")
    return {
      oauth2: {
        clientId: value("reg-client-id"),
        clientSecret: value("reg-client-secret"),
        ...(value("reg-token-url") ? { tokenUrl: value("reg-token-url") } : {}),
        ...(scopes.length > 0 ? { scopes } : {})
      }
    }
  }
  return undefined
}

function register(event: Event) {
  event.preventDefault()
  const allow = value("reg-allow").split(",").map((s) => s.trim()).filter((s) => s !== "")
  const creds = credentials()
  const body = {
    url: value("reg-url"),
    ...(value("reg-name") ? { name: value("reg-name") } : {}),
    kind: $<HTMLSelectElement>("reg-kind").value,
    ...(creds ? { credentials: creds } : {}),
    ...(allow.length > 0 ? { allow } : {})
  }
  const button = $<HTMLButtonElement>("register-button")
  button.disabled = true
  $("register-status").textContent = "Fetching the card..."
  admin<Agent>("POST", "/agents", body).then((agent) => {
    clearError()
    $("register-status").textContent = "Registered " + agent.name + "."
    // The secrets leave the form once the gateway holds them (sealed).
    $<HTMLFormElement>("register-form").reset()
    showCredentialFields()
    return refresh()
  }).catch((error: unknown) => {
    $("register-status").textContent = ""
    showError("Registering the agent", error)
  }).finally(() => {
    button.disabled = false
  })
}

// --- try and preview -----------------------------------------------------------------------------------------

function select(name: string | null) {
  state.selected = name
  $("try-agent").textContent = name || ""
  $("try-form").hidden = name === null
  $("try-hint").hidden = name !== null
  clear($("try-output"))
  $("preview").hidden = true
  document.querySelectorAll("#agent-list tr").forEach((tr) => {
    tr.className = tr.getAttribute("data-agent") === name ? "selected" : ""
  })
  if (name !== null) $("try-message").focus()
}

function partText(part: Part): string {
  if (typeof part.text === "string") return part.text
  if (part.data !== undefined) return JSON.stringify(part.data, null, 2)
  if (typeof part.url === "string") return "[file " + (part.filename || "") + " " + part.url + "]"
  if (typeof part.raw === "string") return "[" + (part.mediaType || "bytes") + " " + (part.filename || "") + "]"
  return "[part]"
}
const partsText = (parts: ReadonlyArray<Part> | undefined) => (parts || []).map(partText).join("")
const shortState = (s: string | undefined) => String(s || "UNKNOWN").replace(/^TASK_STATE_/, "")

function output(kind: string, text: string, className = "event") {
  const item = el("li", { className, "data-kind": kind }, [el("span", { className: "kind", text: kind }), text])
  $("try-output").appendChild(item)
  item.scrollIntoView({ block: "nearest" })
}

function showEvent(event: StreamResponse) {
  if (event.message) output("message", partsText(event.message.parts))
  else if (event.task) {
    const status = event.task.status
    output("task", shortState(status.state) + (status.message ? ": " + partsText(status.message.parts) : ""))
    ;(event.task.artifacts || []).forEach((a) => output("artifact", partsText(a.parts)))
  } else if (event.statusUpdate) {
    const status = event.statusUpdate.status
    output("status", shortState(status.state) + (status.message ? ": " + partsText(status.message.parts) : ""))
  } else if (event.artifactUpdate) output("artifact", partsText(event.artifactUpdate.artifact.parts))
}

function message(text: string) {
  return { message: { messageId: randomId(), role: "ROLE_USER", parts: [{ text }] } }
}

/** The agent's JSON-RPC 1.0 endpoint at the gateway, from the card the front door serves, and whether it streams. */
function frontDoor(name: string, headers: Record<string, string>) {
  const base = agentsPath + "/" + encodeURIComponent(name)
  return fetch(base + "/.well-known/agent-card.json", { headers }).then((response) => {
    if (!response.ok) throw { status: response.status, statusText: response.statusText } satisfies Failure
    return response.json() as Promise<AgentCard>
  }).then((card) => {
    const iface = (card.supportedInterfaces || []).filter((i) =>
      i.protocolBinding === "JSONRPC" && i.protocolVersion === "1.0"
    )[0]
    // This origin is the gateway the page came from; a public URL behind a proxy may name another.
    const url = iface ? new URL(iface.url, location.href) : new URL(base, location.href)
    return { url: location.origin + url.pathname + url.search, streaming: card.capabilities?.["streaming"] === true }
  })
}

function send(event: Event) {
  event.preventDefault()
  const name = state.selected
  const text = $<HTMLTextAreaElement>("try-message").value
  if (name === null || state.sending || !text.trim()) return
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "a2a-version": "1.0",
    "accept": "application/json, text/event-stream"
  }
  const caller = value("caller-token")
  if (caller) headers["authorization"] = "Bearer " + caller
  state.sending = true
  $<HTMLButtonElement>("try-send").disabled = true
  output("you", text, "user")
  frontDoor(name, headers).then(({ streaming, url }) => {
    const target = { url: () => url, headers: () => headers }
    const params = message(text)
    return streaming
      ? stream(target, "SendStreamingMessage", params, showEvent)
      : call<StreamResponse>(target, "SendMessage", params).then(showEvent)
  }).then(() => {
    clearError()
    output("end", "the reply is complete", "notice")
  }).catch((error: unknown) => showError("Sending to " + name, error)).finally(() => {
    state.sending = false
    $<HTMLButtonElement>("try-send").disabled = false
  })
}

function preview() {
  const name = state.selected
  if (name === null) return
  const text = $<HTMLTextAreaElement>("try-message").value || "hello"
  admin<{ request: unknown }>("POST", "/agents/" + encodeURIComponent(name) + "/preview", message(text)).then(
    (answer) => {
      clearError()
      $("preview-body").textContent = JSON.stringify(answer.request, null, 2)
      $("preview").hidden = false
    }
  ).catch((error: unknown) => showError("Previewing a request to " + name, error))
}

// --- start ---------------------------------------------------------------------------------------------------

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault()
  const field = $<HTMLInputElement>("admin-token")
  const token = field.value.trim()
  if (token) sessionStorage.setItem(STORAGE_KEY, token)
  field.value = ""
  field.placeholder = token ? "token set for this tab" : field.placeholder
  void refresh()
})
$("forget-token").addEventListener("click", () => {
  sessionStorage.removeItem(STORAGE_KEY)
  $<HTMLInputElement>("admin-token").placeholder = "the gateway's admin token"
  clear($("agent-list"))
  $("agent-table").hidden = true
  $("agents-empty").hidden = false
  void refresh()
})
$("refresh").addEventListener("click", () => void refresh())
$("register-form").addEventListener("submit", register)
$("reg-cred-kind").addEventListener("change", showCredentialFields)
$("try-form").addEventListener("submit", send)
$("try-preview").addEventListener("click", preview)
$("try-message").addEventListener("keydown", (event) => {
  const key = event as KeyboardEvent
  if (key.key === "Enter" && !key.shiftKey) {
    key.preventDefault()
    $<HTMLFormElement>("try-form").requestSubmit()
  }
})
if (adminToken()) $<HTMLInputElement>("admin-token").placeholder = "token set for this tab"
void refresh()
