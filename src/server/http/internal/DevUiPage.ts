/**
 * The dev UI's page, style and script, as strings (so they ship inside the built package, nothing to copy).
 *
 * The script is a plain A2A 1.0 client of the server's public JSON-RPC interface, found through the agent card:
 * it sees exactly what any client sees. Agent output is untrusted, so everything is rendered with `textContent`
 * and DOM nodes, never as markup; the route's Content-Security-Policy allows only these same-origin files.
 */

import { head } from "./StaticFiles.ts"

/** The page; `assets` is the path the style and script are served under, `cardPath` where the card is. */
export const html = (assets: string, cardPath: string): string =>
  `${head({ title: "A2A dev UI", assets, meta: ["a2a-card-path", cardPath] })}
<body>
<header>
  <h1>A2A dev UI <span id="agent-name"></span></h1>
  <label id="token-field" hidden>Token <input id="token" type="password" autocomplete="off" spellcheck="false"
    placeholder="credential for the agent"></label>
</header>
<div id="error" role="alert" hidden></div>
<main>
  <section id="card" aria-labelledby="card-title">
    <h2 id="card-title">Agent card</h2>
    <div id="card-body"><p class="muted">Loading the card...</p></div>
  </section>
  <section id="chat" aria-labelledby="chat-title">
    <h2 id="chat-title">Chat</h2>
    <ol id="transcript"></ol>
    <form id="send-form">
      <textarea id="message" rows="2" placeholder="Message to the agent (Enter sends, Shift+Enter a new line)"
        required></textarea>
      <div class="row">
        <button id="send" type="submit">Send</button>
        <button id="new-conversation" type="button">New conversation</button>
        <span id="conversation" class="muted"></span>
      </div>
    </form>
  </section>
  <section id="tasks" aria-labelledby="tasks-title">
    <h2 id="tasks-title">Tasks <button id="refresh" type="button">Refresh</button></h2>
    <ul id="task-list"></ul>
    <button id="more-tasks" type="button" hidden>More</button>
    <div id="task-detail"></div>
  </section>
</main>
</body>
</html>
`

export const css = `*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;background:#f4f5f8}
header{display:flex;align-items:center;justify-content:space-between;gap:1rem;padding:.6rem 1rem;background:#1d2330;color:#fff}
header h1{font-size:1.1rem;margin:0}
#agent-name{font-weight:400;opacity:.8;margin-left:.5rem}
header input{margin-left:.4rem;padding:.25rem .4rem;border-radius:4px;border:1px solid #889;width:16rem}
#error{margin:.6rem 1rem 0;padding:.6rem .8rem;border-radius:6px;background:#fde8e8;color:#8a1111;border:1px solid #f3b4b4;white-space:pre-wrap}
main{display:grid;grid-template-columns:minmax(16rem,1fr) minmax(22rem,2fr) minmax(18rem,1.3fr);gap:1rem;padding:1rem;align-items:start}
@media (max-width:900px){main{grid-template-columns:1fr}}
section{background:#fff;border:1px solid #dde0e7;border-radius:8px;padding:.8rem 1rem;min-width:0}
h2{font-size:1rem;margin:0 0 .6rem;display:flex;justify-content:space-between;align-items:center}
h3{font-size:.95rem;margin:.8rem 0 .3rem}
h2 button{font-size:.8rem;font-weight:400}
ul,ol{padding-left:0;list-style:none;margin:0}
.muted{color:#6b7280}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em;word-break:break-all}
dl{display:grid;grid-template-columns:auto 1fr;gap:.15rem .6rem;margin:.3rem 0}
dt{color:#6b7280}
dd{margin:0;min-width:0;word-break:break-word}
.skill{border-top:1px solid #eef0f4;padding:.4rem 0}
.example{margin:.2rem .3rem 0 0;font-size:.8rem}
button{font:inherit;padding:.3rem .7rem;border-radius:5px;border:1px solid #b8bfcc;background:#f7f8fa;cursor:pointer}
button:hover{background:#eceff4}
button[disabled]{opacity:.5;cursor:default}
button.primary,#send{background:#2f5bd3;border-color:#2f5bd3;color:#fff}
button.danger{background:#fff;border-color:#c53030;color:#c53030}
#transcript{display:flex;flex-direction:column;gap:.5rem;max-height:60vh;overflow:auto;margin-bottom:.6rem}
#transcript>li{padding:.5rem .7rem;border-radius:8px;max-width:92%;white-space:pre-wrap;word-break:break-word}
li.user{align-self:flex-end;background:#2f5bd3;color:#fff}
li.agent{align-self:flex-start;background:#eef0f4}
li.task{align-self:stretch;max-width:100%;background:#fff;border:1px solid #dde0e7}
li.notice{align-self:center;background:none;color:#6b7280;font-style:italic}
.task-head{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
.status-lines{margin:.3rem 0;font-size:.9em;color:#374151;max-height:9.5em;overflow:auto}
.status-lines li::before{content:"\\2022  ";color:#9ca3af}
.artifact{margin-top:.4rem;border-left:3px solid #2f5bd3;padding-left:.5rem}
.artifact pre{margin:.2rem 0;white-space:pre-wrap;word-break:break-word;font:inherit}
.state{display:inline-block;padding:0 .45rem;border-radius:999px;font-size:.75rem;font-weight:600;background:#e5e7eb;color:#374151}
.state.TASK_STATE_WORKING,.state.TASK_STATE_SUBMITTED{background:#dbeafe;color:#1e40af}
.state.TASK_STATE_COMPLETED{background:#dcfce7;color:#166534}
.state.TASK_STATE_FAILED,.state.TASK_STATE_REJECTED{background:#fee2e2;color:#991b1b}
.state.TASK_STATE_CANCELED{background:#f3f4f6;color:#4b5563}
.state.TASK_STATE_INPUT_REQUIRED,.state.TASK_STATE_AUTH_REQUIRED{background:#fef3c7;color:#92400e}
#send-form textarea{width:100%;font:inherit;padding:.4rem;border-radius:6px;border:1px solid #b8bfcc;resize:vertical}
.row{display:flex;gap:.5rem;align-items:center;margin-top:.4rem;flex-wrap:wrap}
#task-list li{border-top:1px solid #eef0f4}
#task-list button{all:unset;display:flex;gap:.5rem;align-items:center;width:100%;padding:.35rem .2rem;cursor:pointer}
#task-list button:hover,#task-list li.selected button{background:#f1f4fb}
#task-detail{margin-top:.8rem}
.history li{padding:.25rem 0;border-top:1px solid #f1f2f5;white-space:pre-wrap;word-break:break-word}
.role{font-weight:600;margin-right:.4rem}
`

// Plain ES2020 for the browser. No template literals in it: this file holds it in one.
export const script = String.raw`"use strict";
(function () {
  var TERMINAL = ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"];
  var INTERRUPTED = ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"];
  var $ = function (id) { return document.getElementById(id); };
  var state = {
    endpoint: null, auth: null, contextId: null, pendingTaskId: null, sending: false,
    selectedTask: null, nextPageToken: "", liveTasks: {}
  };

  // DOM nodes from text only: agent output is never parsed as markup.
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "className") node.className = attrs[k];
      else if (k === "onclick") node.addEventListener("click", attrs[k]);
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function stateBadge(s) { return el("span", { className: "state " + s, "data-state": s, text: shortState(s) }); }
  function shortState(s) { return String(s || "UNKNOWN").replace(/^TASK_STATE_/, ""); }
  function isTerminal(s) { return TERMINAL.indexOf(s) >= 0; }

  function showError(what, error) {
    var box = $("error");
    box.textContent = what + ": " + describe(error);
    box.hidden = false;
  }
  function clearError() { $("error").hidden = true; $("error").textContent = ""; }
  function describe(error) {
    if (error && error.rpc) {
      var e = error.rpc;
      var text = String(e.message || "error") + " (code " + e.code + ")";
      if (e.code === -32040 || e.code === -32041 || error.status === 401 || error.status === 403) {
        text += state.auth ? ". Enter a valid token in the Token field." : ".";
      }
      return text;
    }
    if (error && error.cut) return "the connection was cut (" + error.cut + "); the task may still be running (see Tasks)";
    if (error && error.network) return "cannot reach the server (" + error.network + ")";
    if (error && error.status) return "HTTP " + error.status + " " + (error.statusText || "") + (error.body ? ": " + error.body : "");
    return error && error.message ? error.message : String(error);
  }

  function partText(part) {
    if (typeof part.text === "string") return part.text;
    if (part.data !== undefined) return JSON.stringify(part.data, null, 2);
    if (typeof part.url === "string") return "[file " + (part.filename || "") + " " + part.url + "]";
    if (typeof part.raw === "string") return "[" + (part.mediaType || "bytes") + " " + (part.filename || "") + ", " + Math.floor(part.raw.length * 3 / 4) + " bytes]";
    return "[part]";
  }
  function partsText(parts) { return (parts || []).map(partText).join(""); }

  function randomId() {
    var b = new Uint8Array(16);
    crypto.getRandomValues(b);
    b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
    var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  function token() { return state.auth ? $("token").value.trim() : ""; }
  function headers() {
    var h = { "content-type": "application/json", "a2a-version": "1.0", "accept": "application/json, text/event-stream" };
    if (token() && state.auth.header) h[state.auth.header] = token();
    else if (token() && !state.auth.query && !state.auth.cookie) h["authorization"] = "Bearer " + token();
    if (state.auth && state.auth.cookie) {
      document.cookie = encodeURIComponent(state.auth.cookie) + "=" + encodeURIComponent(token()) + "; path=/; SameSite=Strict" + (token() ? "" : "; max-age=0");
    }
    return h;
  }
  function endpoint() {
    if (!token() || !state.auth.query) return state.endpoint;
    var url = new URL(state.endpoint);
    url.searchParams.set(state.auth.query, token());
    return url.href;
  }

  function rpcBody(method, params) {
    return JSON.stringify({ jsonrpc: "2.0", id: randomId(), method: method, params: params });
  }

  function post(method, params) {
    return fetch(endpoint(), { method: "POST", headers: headers(), body: rpcBody(method, params) })
      .catch(function (error) { throw { network: error && error.message ? error.message : String(error) }; });
  }

  // A JSON-RPC call; rejects with { rpc } for an A2A error, { status } for an HTTP failure without one.
  function call(method, params) {
    return post(method, params)
      .then(function (response) {
        return response.text().then(function (body) {
          var json = null;
          try { json = JSON.parse(body); } catch (_) { /* not JSON */ }
          if (json && json.error) throw { rpc: json.error, status: response.status };
          if (!response.ok || !json || !("result" in json)) {
            throw { status: response.status, statusText: response.statusText, body: body.slice(0, 200) };
          }
          return json.result;
        });
      });
  }

  // SendStreamingMessage: calls onEvent with each StreamResponse as it arrives; resolves when the stream ends.
  function stream(method, params, onEvent) {
    return post(method, params)
      .then(function (response) {
        var type = response.headers.get("content-type") || "";
        if (type.indexOf("text/event-stream") < 0) {
          return response.text().then(function (body) {
            var json = null;
            try { json = JSON.parse(body); } catch (_) { /* not JSON */ }
            if (json && json.error) throw { rpc: json.error, status: response.status };
            if (json && json.result) { onEvent(json.result); return; }
            throw { status: response.status, statusText: response.statusText, body: body.slice(0, 200) };
          });
        }
        var reader = response.body.getReader();
        var decoder = new TextDecoder();
        var buffer = "";
        function dispatch(block) {
          var data = block.split(/\r?\n/).filter(function (l) { return l.indexOf("data:") === 0; })
            .map(function (l) { return l.slice(5).replace(/^ /, ""); }).join("\n");
          if (!data) return;
          var json = JSON.parse(data);
          if (json.error) throw { rpc: json.error, status: response.status };
          onEvent(json.result);
        }
        function pump() {
          return reader.read().catch(function (error) {
            throw { cut: error && error.message ? error.message : String(error) };
          }).then(function (chunk) {
            if (chunk.done) { if (buffer.trim()) dispatch(buffer); return; }
            buffer += decoder.decode(chunk.value, { stream: true });
            var blocks = buffer.split(/\r?\n\r?\n/);
            buffer = blocks.pop();
            blocks.forEach(dispatch);
            return pump();
          });
        }
        return pump();
      });
  }

  // --- the card -------------------------------------------------------------------------------------------

  function loadCard() {
    var path = document.querySelector('meta[name="a2a-card-path"]').getAttribute("content");
    return fetch(path, { headers: { "a2a-version": "1.0" } }).then(function (response) {
      if (!response.ok) throw { status: response.status, statusText: response.statusText };
      return response.json();
    }).then(function (card) {
      renderCard(card);
      var iface = (card.supportedInterfaces || []).filter(function (i) {
        return i.protocolBinding === "JSONRPC" && i.protocolVersion === "1.0";
      })[0];
      if (!iface) throw new Error("the card lists no JSON-RPC 1.0 interface, which this page speaks");
      // The server that served this page is the one to talk to; a public URL behind a proxy may name another origin.
      var url = new URL(iface.url, location.href);
      state.endpoint = url.origin === location.origin ? url.href : location.origin + url.pathname + url.search;
      state.auth = authOf(card);
      $("token-field").hidden = !state.auth;
      return refreshTasks();
    });
  }

  // How the card asks for credentials: an API key (header, query parameter or cookie), a client certificate (the
  // browser's business: no field), or a bearer token for every other scheme (HTTP Bearer, OAuth 2.0, OpenID Connect).
  function authOf(card) {
    var schemes = card.securitySchemes || {};
    var names = Object.keys(schemes);
    if (names.length === 0) return null;
    var scheme = schemes[names[0]];
    if (scheme.mtlsSecurityScheme) return null;
    var key = scheme.apiKeySecurityScheme;
    if (key) return { header: key.location === "header" ? key.name : null, query: key.location === "query" ? key.name : null, cookie: key.location === "cookie" ? key.name : null };
    return { header: null, query: null, cookie: null };
  }

  function renderCard(card) {
    $("agent-name").textContent = card.name || "";
    document.title = "A2A dev UI: " + (card.name || "agent");
    var body = $("card-body");
    clear(body);
    body.appendChild(el("h3", { id: "card-name", text: (card.name || "(no name)") + " " + (card.version || "") }));
    if (card.description) body.appendChild(el("p", { id: "card-description", text: card.description }));
    var caps = card.capabilities || {};
    var capsText = Object.keys(caps).filter(function (k) { return caps[k] === true; }).join(", ") || "none";
    var dl = el("dl", null, [
      el("dt", { text: "Capabilities" }), el("dd", { text: capsText }),
      el("dt", { text: "Input" }), el("dd", { text: (card.defaultInputModes || []).join(", ") }),
      el("dt", { text: "Output" }), el("dd", { text: (card.defaultOutputModes || []).join(", ") }),
      el("dt", { text: "Security" }), el("dd", { text: Object.keys(card.securitySchemes || {}).join(", ") || "none" })
    ]);
    body.appendChild(dl);
    body.appendChild(el("h3", { text: "Interfaces" }));
    body.appendChild(el("ul", { id: "card-interfaces" }, (card.supportedInterfaces || []).map(function (i) {
      return el("li", { className: "mono", text: i.protocolBinding + " " + i.protocolVersion + "  " + i.url });
    })));
    body.appendChild(el("h3", { text: "Skills" }));
    body.appendChild(el("ul", { id: "card-skills" }, (card.skills || []).map(function (s) {
      return el("li", { className: "skill" }, [
        el("strong", { text: s.name || s.id }), " ", el("span", { className: "muted", text: "(" + s.id + ")" }),
        el("div", { text: s.description || "" }),
        el("div", null, (s.examples || []).map(function (example) {
          return el("button", { type: "button", className: "example", text: example, onclick: function () {
            $("message").value = example; $("message").focus();
          } });
        }))
      ]);
    })));
  }

  // --- the chat -------------------------------------------------------------------------------------------

  function transcriptAdd(node) {
    var t = $("transcript");
    t.appendChild(node);
    t.scrollTop = t.scrollHeight;
    return node;
  }
  function notice(text) { transcriptAdd(el("li", { className: "notice", text: text })); }

  function conversationLabel() {
    var parts = [];
    if (state.contextId) parts.push("context " + state.contextId.slice(0, 8));
    if (state.pendingTaskId) parts.push("answering task " + state.pendingTaskId.slice(0, 8));
    $("conversation").textContent = parts.join(", ");
  }

  // One block per task in the transcript, updated live by its events.
  function taskView(task) {
    var view = state.liveTasks[task.id];
    if (view) return view;
    var badge = stateBadge("TASK_STATE_SUBMITTED");
    var cancel = el("button", { type: "button", className: "danger cancel", text: "Cancel" });
    var node = el("li", { className: "task", "data-task-id": task.id }, [
      el("div", { className: "task-head" }, [el("strong", { text: "Task" }), el("span", { className: "mono", text: task.id }), badge, cancel]),
      el("ul", { className: "status-lines" }),
      el("div", { className: "artifacts" })
    ]);
    view = { node: node, badge: badge, cancel: cancel, lines: node.querySelector(".status-lines"), artifacts: node.querySelector(".artifacts"), state: null };
    cancel.addEventListener("click", function () { cancelTask(task.id); });
    state.liveTasks[task.id] = view;
    transcriptAdd(node);
    return view;
  }

  function setTaskState(view, taskState, message) {
    view.state = taskState;
    view.badge.className = "state " + taskState;
    view.badge.setAttribute("data-state", taskState);
    view.badge.textContent = shortState(taskState);
    view.cancel.hidden = isTerminal(taskState);
    if (message && message.parts) {
      view.lines.appendChild(el("li", { text: partsText(message.parts) }));
      view.lines.scrollTop = view.lines.scrollHeight;
    }
  }

  function artifactView(view, artifact, append) {
    var node = view.artifacts.querySelector('[data-artifact-id="' + CSS.escape(artifact.artifactId) + '"]');
    if (!node) {
      node = el("div", { className: "artifact", "data-artifact-id": artifact.artifactId }, [
        el("strong", { text: artifact.name || "artifact" }), el("pre")
      ]);
      view.artifacts.appendChild(node);
    }
    var pre = node.querySelector("pre");
    var text = partsText(artifact.parts);
    pre.textContent = append ? pre.textContent + text : text;
  }

  function onStreamEvent(event, seen) {
    if (event.message) {
      seen.ended = true;
      if (event.message.contextId) state.contextId = event.message.contextId;
      transcriptAdd(el("li", { className: "agent", text: partsText(event.message.parts) }));
    } else if (event.task) {
      var task = event.task;
      seen.taskId = task.id;
      state.contextId = task.contextId;
      var view = taskView(task);
      setTaskState(view, task.status.state, task.status.message);
      (task.artifacts || []).forEach(function (a) { artifactView(view, a, false); });
      seen.state = task.status.state;
      refreshTasks();
    } else if (event.statusUpdate) {
      var u = event.statusUpdate;
      setTaskState(taskView({ id: u.taskId }), u.status.state, u.status.message);
      seen.state = u.status.state;
    } else if (event.artifactUpdate) {
      var a = event.artifactUpdate;
      artifactView(taskView({ id: a.taskId }), a.artifact, a.append === true);
    }
  }

  function send(text) {
    clearError();
    var message = { messageId: randomId(), role: "ROLE_USER", parts: [{ text: text }] };
    if (state.contextId) message.contextId = state.contextId;
    if (state.pendingTaskId) message.taskId = state.pendingTaskId;
    transcriptAdd(el("li", { className: "user", text: text }));
    state.sending = true;
    $("send").disabled = true;
    var seen = { taskId: null, state: null, ended: false };
    return stream("SendStreamingMessage", { message: message }, function (event) { onStreamEvent(event, seen); })
      .then(function () {
        state.pendingTaskId = null;
        if (seen.taskId) {
          if (INTERRUPTED.indexOf(seen.state) >= 0) {
            state.pendingTaskId = seen.taskId;
            notice("The agent waits for your answer: the next message continues this task.");
          } else if (!isTerminal(seen.state)) {
            notice("The stream ended before the task finished; it may still be running (see Tasks).");
          }
        }
      })
      .then(refreshTasks, function (error) { showError("SendStreamingMessage failed", error); })
      .then(function () {
        state.sending = false;
        $("send").disabled = false;
        conversationLabel();
      });
  }

  function cancelTask(id) {
    clearError();
    return call("CancelTask", { id: id }).then(function (task) {
      var view = state.liveTasks[id];
      if (view && view.state !== task.status.state) setTaskState(view, task.status.state, null);
      if (state.selectedTask === id) renderTaskDetail(task);
      return refreshTasks();
    }).catch(function (error) { showError("CancelTask failed", error); });
  }

  // --- the task list --------------------------------------------------------------------------------------

  function refreshTasks(more) {
    if (!state.endpoint) return Promise.resolve();
    var params = { pageSize: 20, historyLength: 0 };
    if (more && state.nextPageToken) params.pageToken = state.nextPageToken;
    return call("ListTasks", params).then(function (page) {
      var list = $("task-list");
      if (!more) clear(list);
      (page.tasks || []).forEach(function (task) {
        var item = el("li", { "data-task-id": task.id, className: task.id === state.selectedTask ? "selected" : "" }, [
          el("button", { type: "button", onclick: function () { selectTask(task.id); } }, [
            stateBadge(task.status.state),
            el("span", { className: "mono", text: task.id.slice(0, 8) }),
            el("span", { className: "muted", text: task.status.timestamp ? new Date(task.status.timestamp).toLocaleTimeString() : "" })
          ])
        ]);
        list.appendChild(item);
      });
      if (!more && (page.tasks || []).length === 0) list.appendChild(el("li", { className: "muted", text: "No tasks yet." }));
      state.nextPageToken = page.nextPageToken || "";
      $("more-tasks").hidden = !state.nextPageToken;
    }).catch(function (error) { showError("ListTasks failed", error); });
  }

  function selectTask(id) {
    clearError();
    state.selectedTask = id;
    Array.prototype.forEach.call($("task-list").children, function (li) {
      li.classList.toggle("selected", li.getAttribute("data-task-id") === id);
    });
    return call("GetTask", { id: id }).then(renderTaskDetail).catch(function (error) { showError("GetTask failed", error); });
  }

  function renderTaskDetail(task) {
    var box = $("task-detail");
    clear(box);
    box.setAttribute("data-task-id", task.id);
    var cancel = isTerminal(task.status.state) ? null : el("button", { type: "button", className: "danger cancel", text: "Cancel task", onclick: function () { cancelTask(task.id); } });
    box.appendChild(el("h3", { className: "task-head" }, ["Task ", stateBadge(task.status.state), cancel]));
    box.appendChild(el("dl", null, [
      el("dt", { text: "Id" }), el("dd", { className: "mono", text: task.id }),
      el("dt", { text: "Context" }), el("dd", { className: "mono", text: task.contextId || "" }),
      el("dt", { text: "Updated" }), el("dd", { text: task.status.timestamp || "" }),
      el("dt", { text: "Status" }), el("dd", { text: task.status.message ? partsText(task.status.message.parts) : "" })
    ]));
    box.appendChild(el("h3", { text: "History" }));
    box.appendChild(el("ol", { className: "history" }, (task.history || []).map(function (m) {
      return el("li", { "data-role": m.role }, [el("span", { className: "role", text: m.role === "ROLE_USER" ? "user" : "agent" }), " ", partsText(m.parts)]);
    })));
    if ((task.artifacts || []).length > 0) {
      box.appendChild(el("h3", { text: "Artifacts" }));
      task.artifacts.forEach(function (a) {
        box.appendChild(el("div", { className: "artifact" }, [el("strong", { text: a.name || a.artifactId }), el("pre", { text: partsText(a.parts) })]));
      });
    }
  }

  // --- wiring ---------------------------------------------------------------------------------------------

  $("send-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var text = $("message").value.trim();
    if (!text || state.sending || !state.endpoint) return;
    $("message").value = "";
    send(text);
  });
  $("message").addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("send-form").requestSubmit(); }
  });
  $("new-conversation").addEventListener("click", function () {
    state.contextId = null; state.pendingTaskId = null; state.liveTasks = {};
    clear($("transcript")); conversationLabel();
  });
  $("refresh").addEventListener("click", function () { clearError(); refreshTasks(); });
  $("more-tasks").addEventListener("click", function () { refreshTasks(true); });
  $("token").addEventListener("change", function () { clearError(); refreshTasks(); });

  loadCard().catch(function (error) { showError("Cannot use the agent card", error); });
})();
`
