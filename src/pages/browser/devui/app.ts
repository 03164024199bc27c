/**
 * The dev UI's script (served as `app.js`; `npm run pages` bundles it into internal/DevUiPage.ts): a plain A2A 1.0
 * client of the server's public JSON-RPC interface, found through the agent card, so it sees exactly what any
 * client sees. Agent output is untrusted: everything is rendered with `textContent` and DOM nodes, never as markup;
 * the route's Content-Security-Policy allows only this page's same-origin files.
 */
"use strict"
import { $, clearError, el, showErrorText } from "../Dom.ts"
import {
  type AgentCard,
  type Artifact,
  call,
  type Failure,
  type ListTasksResponse,
  type Message,
  type Part,
  randomId,
  stream,
  type StreamResponse,
  type Target,
  type Task
} from "./Rpc.ts"

/** How the card asks for credentials: the API key's header, query parameter or cookie; none of them for a bearer. */
interface Auth {
  readonly header: string | null
  readonly query: string | null
  readonly cookie: string | null
}

/** One block per task in the transcript, updated live by its events. */
interface TaskView {
  readonly node: HTMLElement
  readonly badge: HTMLElement
  readonly cancel: HTMLElement
  readonly lines: HTMLElement
  readonly artifacts: HTMLElement
  state: string | null
}

const TERMINAL = ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]
const INTERRUPTED = ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"]

const state = {
  endpoint: null as string | null,
  auth: null as Auth | null,
  contextId: null as string | null,
  pendingTaskId: null as string | null,
  sending: false,
  selectedTask: null as string | null,
  nextPageToken: "",
  liveTasks: {} as Record<string, TaskView>
}

function clear(node: Node) {
  while (node.firstChild) node.removeChild(node.firstChild)
}
function stateBadge(s: string) {
  return el("span", { className: "state " + s, "data-state": s, text: shortState(s) })
}
function shortState(s: string | null | undefined) {
  return String(s || "UNKNOWN").replace(/^TASK_STATE_/, "")
}
function isTerminal(s: string | null) {
  return s !== null && TERMINAL.indexOf(s) >= 0
}

function showError(what: string, error: unknown) {
  showErrorText(what + ": " + describe(error))
}
function describe(error: unknown): string {
  const failure = (typeof error === "object" && error !== null ? error : {}) as Failure & { message?: string }
  if (failure.rpc) {
    const e = failure.rpc
    let text = String(e.message || "error") + " (code " + e.code + ")"
    if (e.code === -32040 || e.code === -32041 || failure.status === 401 || failure.status === 403) {
      text += state.auth ? ". Enter a valid token in the Token field." : "."
    }
    return text
  }
  if (failure.cut) return "the connection was cut (" + failure.cut + "); the task may still be running (see Tasks)"
  if (failure.network) return "cannot reach the server (" + failure.network + ")"
  if (failure.status) {
    return "HTTP " + failure.status + " " + (failure.statusText || "") + (failure.body ? ": " + failure.body : "")
  }
  return failure.message ? failure.message : String(error)
}

function partText(part: Part): string {
  if (typeof part.text === "string") return part.text
  if (part.data !== undefined) return JSON.stringify(part.data, null, 2)
  if (typeof part.url === "string") return "[file " + (part.filename || "") + " " + part.url + "]"
  if (typeof part.raw === "string") {
    return "[" + (part.mediaType || "bytes") + " " + (part.filename || "") + ", " +
      Math.floor(part.raw.length * 3 / 4) + " bytes]"
  }
  return "[part]"
}
function partsText(parts: ReadonlyArray<Part> | undefined) {
  return (parts || []).map(partText).join("")
}

function token() {
  return state.auth ? $<HTMLInputElement>("token").value.trim() : ""
}
function headers() {
  const h: Record<string, string> = {
    "content-type": "application/json",
    "a2a-version": "1.0",
    "accept": "application/json, text/event-stream"
  }
  const auth = state.auth
  if (auth && token() && auth.header) h[auth.header] = token()
  else if (auth && token() && !auth.query && !auth.cookie) h["authorization"] = "Bearer " + token()
  if (auth && auth.cookie) {
    document.cookie = encodeURIComponent(auth.cookie) + "=" + encodeURIComponent(token()) +
      "; path=/; SameSite=Strict" + (token() ? "" : "; max-age=0")
  }
  return h
}
function endpoint(): string {
  const at = state.endpoint!
  if (!token() || !state.auth || !state.auth.query) return at
  const url = new URL(at)
  url.searchParams.set(state.auth.query, token())
  return url.href
}

/** The endpoint the card names, with the credentials the page holds now. */
const target: Target = { url: endpoint, headers }

// --- the card -------------------------------------------------------------------------------------------

function loadCard() {
  const path = document.querySelector("meta[name=\"a2a-card-path\"]")!.getAttribute("content")!
  return fetch(path, { headers: { "a2a-version": "1.0" } }).then((response) => {
    if (!response.ok) throw { status: response.status, statusText: response.statusText } satisfies Failure
    return response.json() as Promise<AgentCard>
  }).then((card) => {
    renderCard(card)
    const iface = (card.supportedInterfaces || []).filter((i) =>
      i.protocolBinding === "JSONRPC" && i.protocolVersion === "1.0"
    )[0]
    if (!iface) throw new Error("the card lists no JSON-RPC 1.0 interface, which this page speaks")
    // The server that served this page is the one to talk to; a public URL behind a proxy may name another origin.
    const url = new URL(iface.url, location.href)
    state.endpoint = url.origin === location.origin ? url.href : location.origin + url.pathname + url.search
    state.auth = authOf(card)
    $("token-field").hidden = !state.auth
    return refreshTasks()
  })
}

// How the card asks for credentials: an API key (header, query parameter or cookie), a client certificate (the
// browser's business: no field), or a bearer token for every other scheme (HTTP Bearer, OAuth 2.0, OpenID Connect).
function authOf(card: AgentCard): Auth | null {
  const schemes = card.securitySchemes || {}
  const names = Object.keys(schemes)
  if (names.length === 0) return null
  const scheme = schemes[names[0]!]!
  if (scheme.mtlsSecurityScheme) return null
  const key = scheme.apiKeySecurityScheme
  if (key) {
    const name = key.name ?? null
    return {
      header: key.location === "header" ? name : null,
      query: key.location === "query" ? name : null,
      cookie: key.location === "cookie" ? name : null
    }
  }
  return { header: null, query: null, cookie: null }
}

function renderCard(card: AgentCard) {
  $("agent-name").textContent = card.name || ""
  document.title = "A2A dev UI: " + (card.name || "agent")
  const body = $("card-body")
  clear(body)
  body.appendChild(el("h3", { id: "card-name", text: (card.name || "(no name)") + " " + (card.version || "") }))
  if (card.description) body.appendChild(el("p", { id: "card-description", text: card.description }))
  const caps = card.capabilities || {}
  const capsText = Object.keys(caps).filter((k) => caps[k] === true).join(", ") || "none"
  const dl = el("dl", null, [
    el("dt", { text: "Capabilities" }),
    el("dd", { text: capsText }),
    el("dt", { text: "Input" }),
    el("dd", { text: (card.defaultInputModes || []).join(", ") }),
    el("dt", { text: "Output" }),
    el("dd", { text: (card.defaultOutputModes || []).join(", ") }),
    el("dt", { text: "Security" }),
    el("dd", { text: Object.keys(card.securitySchemes || {}).join(", ") || "none" })
  ])
  body.appendChild(dl)
  body.appendChild(el("h3", { text: "Interfaces" }))
  body.appendChild(el(
    "ul",
    { id: "card-interfaces" },
    (card.supportedInterfaces || []).map((i) =>
      el("li", { className: "mono", text: i.protocolBinding + " " + i.protocolVersion + "  " + i.url })
    )
  ))
  body.appendChild(el("h3", { text: "Skills" }))
  body.appendChild(el(
    "ul",
    { id: "card-skills" },
    (card.skills || []).map((s) =>
      el("li", { className: "skill" }, [
        el("strong", { text: s.name || s.id }),
        " ",
        el("span", { className: "muted", text: "(" + s.id + ")" }),
        el("div", { text: s.description || "" }),
        el(
          "div",
          null,
          (s.examples || []).map((example) =>
            el("button", {
              type: "button",
              className: "example",
              text: example,
              onclick: () => {
                $<HTMLTextAreaElement>("message").value = example
                $("message").focus()
              }
            })
          )
        )
      ])
    )
  ))
}

// --- the chat -------------------------------------------------------------------------------------------

function transcriptAdd(node: HTMLElement) {
  const t = $("transcript")
  t.appendChild(node)
  t.scrollTop = t.scrollHeight
  return node
}
function notice(text: string) {
  transcriptAdd(el("li", { className: "notice", text }))
}

function conversationLabel() {
  const parts: Array<string> = []
  if (state.contextId) parts.push("context " + state.contextId.slice(0, 8))
  if (state.pendingTaskId) parts.push("answering task " + state.pendingTaskId.slice(0, 8))
  $("conversation").textContent = parts.join(", ")
}

function taskView(task: { readonly id: string }): TaskView {
  const existing = state.liveTasks[task.id]
  if (existing) return existing
  const badge = stateBadge("TASK_STATE_SUBMITTED")
  const cancel = el("button", { type: "button", className: "danger cancel", text: "Cancel" })
  const node = el("li", { className: "task", "data-task-id": task.id }, [
    el("div", { className: "task-head" }, [
      el("strong", { text: "Task" }),
      el("span", { className: "mono", text: task.id }),
      badge,
      cancel
    ]),
    el("ul", { className: "status-lines" }),
    el("div", { className: "artifacts" })
  ])
  const view: TaskView = {
    node,
    badge,
    cancel,
    lines: node.querySelector<HTMLElement>(".status-lines")!,
    artifacts: node.querySelector<HTMLElement>(".artifacts")!,
    state: null
  }
  cancel.addEventListener("click", () => {
    cancelTask(task.id)
  })
  state.liveTasks[task.id] = view
  transcriptAdd(node)
  return view
}

function setTaskState(view: TaskView, taskState: string, message: Message | null | undefined) {
  view.state = taskState
  view.badge.className = "state " + taskState
  view.badge.setAttribute("data-state", taskState)
  view.badge.textContent = shortState(taskState)
  view.cancel.hidden = isTerminal(taskState)
  if (message && message.parts) {
    view.lines.appendChild(el("li", { text: partsText(message.parts) }))
    view.lines.scrollTop = view.lines.scrollHeight
  }
}

function artifactView(view: TaskView, artifact: Artifact, append: boolean) {
  let node = view.artifacts.querySelector("[data-artifact-id=\"" + CSS.escape(artifact.artifactId) + "\"]")
  if (!node) {
    node = el("div", { className: "artifact", "data-artifact-id": artifact.artifactId }, [
      el("strong", { text: artifact.name || "artifact" }),
      el("pre")
    ])
    view.artifacts.appendChild(node)
  }
  const pre = node.querySelector("pre")!
  const text = partsText(artifact.parts)
  pre.textContent = append ? pre.textContent + text : text
}

interface Seen {
  taskId: string | null
  state: string | null
  ended: boolean
}

function onStreamEvent(event: StreamResponse, seen: Seen) {
  if (event.message) {
    seen.ended = true
    if (event.message.contextId) state.contextId = event.message.contextId
    transcriptAdd(el("li", { className: "agent", text: partsText(event.message.parts) }))
  } else if (event.task) {
    const task = event.task
    seen.taskId = task.id
    state.contextId = task.contextId ?? null
    const view = taskView(task)
    setTaskState(view, task.status.state, task.status.message)
    ;(task.artifacts || []).forEach((a) => artifactView(view, a, false))
    seen.state = task.status.state
    refreshTasks()
  } else if (event.statusUpdate) {
    const u = event.statusUpdate
    setTaskState(taskView({ id: u.taskId }), u.status.state, u.status.message)
    seen.state = u.status.state
  } else if (event.artifactUpdate) {
    const a = event.artifactUpdate
    artifactView(taskView({ id: a.taskId }), a.artifact, a.append === true)
  }
}

function send(text: string) {
  clearError()
  const message: { -readonly [K in keyof Message]: Message[K] } = {
    messageId: randomId(),
    role: "ROLE_USER",
    parts: [{ text }]
  }
  if (state.contextId) message.contextId = state.contextId
  if (state.pendingTaskId) message.taskId = state.pendingTaskId
  transcriptAdd(el("li", { className: "user", text }))
  state.sending = true
  $<HTMLButtonElement>("send").disabled = true
  const seen: Seen = { taskId: null, state: null, ended: false }
  return stream(target, "SendStreamingMessage", { message }, (event) => onStreamEvent(event, seen))
    .then(() => {
      state.pendingTaskId = null
      if (seen.taskId) {
        if (seen.state !== null && INTERRUPTED.indexOf(seen.state) >= 0) {
          state.pendingTaskId = seen.taskId
          notice("The agent waits for your answer: the next message continues this task.")
        } else if (!isTerminal(seen.state)) {
          notice("The stream ended before the task finished; it may still be running (see Tasks).")
        }
      }
    })
    .then(() => refreshTasks(), (error: unknown) => showError("SendStreamingMessage failed", error))
    .then(() => {
      state.sending = false
      $<HTMLButtonElement>("send").disabled = false
      conversationLabel()
    })
}

function cancelTask(id: string) {
  clearError()
  return call<Task>(target, "CancelTask", { id }).then((task) => {
    const view = state.liveTasks[id]
    if (view && view.state !== task.status.state) setTaskState(view, task.status.state, null)
    if (state.selectedTask === id) renderTaskDetail(task)
    return refreshTasks()
  }).catch((error: unknown) => showError("CancelTask failed", error))
}

// --- the task list --------------------------------------------------------------------------------------

function refreshTasks(more?: boolean): Promise<void> {
  if (!state.endpoint) return Promise.resolve()
  const params: { pageSize: number; historyLength: number; pageToken?: string } = { pageSize: 20, historyLength: 0 }
  if (more && state.nextPageToken) params.pageToken = state.nextPageToken
  return call<ListTasksResponse>(target, "ListTasks", params).then((page) => {
    const list = $("task-list")
    if (!more) clear(list)
    ;(page.tasks || []).forEach((task) => {
      const item = el("li", { "data-task-id": task.id, className: task.id === state.selectedTask ? "selected" : "" }, [
        el("button", {
          type: "button",
          onclick: () => {
            selectTask(task.id)
          }
        }, [
          stateBadge(task.status.state),
          el("span", { className: "mono", text: task.id.slice(0, 8) }),
          el("span", {
            className: "muted",
            text: task.status.timestamp ? new Date(task.status.timestamp).toLocaleTimeString() : ""
          })
        ])
      ])
      list.appendChild(item)
    })
    if (!more && (page.tasks || []).length === 0) {
      list.appendChild(el("li", { className: "muted", text: "No tasks yet." }))
    }
    state.nextPageToken = page.nextPageToken || ""
    $("more-tasks").hidden = !state.nextPageToken
  }).catch((error: unknown) => showError("ListTasks failed", error))
}

function selectTask(id: string) {
  clearError()
  state.selectedTask = id
  Array.from($("task-list").children).forEach((li) => {
    li.classList.toggle("selected", li.getAttribute("data-task-id") === id)
  })
  return call<Task>(target, "GetTask", { id }).then(renderTaskDetail).catch((error: unknown) =>
    showError("GetTask failed", error)
  )
}

function renderTaskDetail(task: Task) {
  const box = $("task-detail")
  clear(box)
  box.setAttribute("data-task-id", task.id)
  const cancel = isTerminal(task.status.state) ? null : el("button", {
    type: "button",
    className: "danger cancel",
    text: "Cancel task",
    onclick: () => {
      cancelTask(task.id)
    }
  })
  box.appendChild(el("h3", { className: "task-head" }, ["Task ", stateBadge(task.status.state), cancel]))
  box.appendChild(el("dl", null, [
    el("dt", { text: "Id" }),
    el("dd", { className: "mono", text: task.id }),
    el("dt", { text: "Context" }),
    el("dd", { className: "mono", text: task.contextId || "" }),
    el("dt", { text: "Updated" }),
    el("dd", { text: task.status.timestamp || "" }),
    el("dt", { text: "Status" }),
    el("dd", { text: task.status.message ? partsText(task.status.message.parts) : "" })
  ]))
  box.appendChild(el("h3", { text: "History" }))
  box.appendChild(el(
    "ol",
    { className: "history" },
    (task.history || []).map((m) =>
      el("li", { "data-role": m.role ?? "" }, [
        el("span", { className: "role", text: m.role === "ROLE_USER" ? "user" : "agent" }),
        " ",
        partsText(m.parts)
      ])
    )
  ))
  const artifacts = task.artifacts || []
  if (artifacts.length > 0) {
    box.appendChild(el("h3", { text: "Artifacts" }))
    artifacts.forEach((a) => {
      box.appendChild(
        el("div", { className: "artifact" }, [
          el("strong", { text: a.name || a.artifactId }),
          el("pre", { text: partsText(a.parts) })
        ])
      )
    })
  }
}

// --- wiring ---------------------------------------------------------------------------------------------

$("send-form").addEventListener("submit", (e) => {
  e.preventDefault()
  const text = $<HTMLTextAreaElement>("message").value.trim()
  if (!text || state.sending || !state.endpoint) return
  $<HTMLTextAreaElement>("message").value = ""
  send(text)
})
$("message").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey) {
    e.preventDefault()
    $<HTMLFormElement>("send-form").requestSubmit()
  }
})
$("new-conversation").addEventListener("click", () => {
  state.contextId = null
  state.pendingTaskId = null
  state.liveTasks = {}
  clear($("transcript"))
  conversationLabel()
})
$("refresh").addEventListener("click", () => {
  clearError()
  refreshTasks()
})
$("more-tasks").addEventListener("click", () => {
  refreshTasks(true)
})
$("token").addEventListener("change", () => {
  clearError()
  refreshTasks()
})

loadCard().catch((error: unknown) => showError("Cannot use the agent card", error))
