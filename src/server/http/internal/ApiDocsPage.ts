/**
 * The API docs page, its style and script, as strings (so they ship inside the built package, nothing to copy).
 *
 * The script reads the OpenAPI document from this origin and renders it: servers, security, each operation (method,
 * path, summary, parameters, request body, responses, stream events) and each component schema (its properties,
 * or its variants), with every `$ref` a link to its schema. Everything is rendered with `textContent` and DOM
 * nodes, never as markup; the route's Content-Security-Policy allows only these same-origin files.
 */
import { escapeHtml, head } from "./StaticFiles.ts"

/** The page; `assets` is the path the style and script are served under, `documentPath` where the document is. */
export const html = (assets: string, documentPath: string): string =>
  `${head({ title: "A2A HTTP+JSON API", assets, meta: ["openapi-path", documentPath] })}
<body>
<header>
  <h1 id="title">A2A HTTP+JSON API</h1>
  <span id="version"></span>
  <a id="raw" href="${escapeHtml(documentPath)}">OpenAPI document</a>
</header>
<div id="error" role="alert" hidden></div>
<main>
  <nav aria-label="Contents">
    <h2>Operations</h2><ul id="operation-index"></ul>
    <h2>Schemas</h2><ul id="schema-index"></ul>
  </nav>
  <div id="content">
    <p id="description"></p>
    <section aria-labelledby="servers-title"><h2 id="servers-title">Servers</h2><ul id="servers"></ul></section>
    <section id="security" aria-labelledby="security-title" hidden>
      <h2 id="security-title">Security</h2><ul id="security-schemes"></ul>
    </section>
    <section aria-labelledby="operations-title"><h2 id="operations-title">Operations</h2><div id="operations">
      <p class="muted">Loading the document...</p></div></section>
    <section aria-labelledby="schemas-title"><h2 id="schemas-title">Schemas</h2><div id="schemas"></div></section>
  </div>
</main>
</body>
</html>
`

export const css = `*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;background:#f4f5f8}
header{display:flex;align-items:baseline;gap:1rem;padding:.6rem 1rem;background:#1d2330;color:#fff}
header h1{font-size:1.1rem;margin:0}
header a{color:#c7d2fe;margin-left:auto}
#version{opacity:.8}
#error{margin:.6rem 1rem 0;padding:.6rem .8rem;border-radius:6px;background:#fde8e8;color:#8a1111;border:1px solid #f3b4b4;white-space:pre-wrap}
main{display:grid;grid-template-columns:minmax(14rem,1fr) 4fr;gap:1rem;padding:1rem;align-items:start}
@media (max-width:900px){main{grid-template-columns:1fr}}
nav{position:sticky;top:1rem;max-height:calc(100vh - 2rem);overflow:auto;background:#fff;border:1px solid #dde0e7;border-radius:8px;padding:.6rem .8rem}
nav h2{font-size:.9rem;margin:.4rem 0}
ul{padding-left:0;list-style:none;margin:0}
nav li{padding:.1rem 0}
a{color:#2f5bd3;text-decoration:none}
a:hover{text-decoration:underline}
section{margin-bottom:1rem}
h2{font-size:1rem;margin:0 0 .5rem}
article{background:#fff;border:1px solid #dde0e7;border-radius:8px;padding:.7rem 1rem;margin-bottom:.7rem;min-width:0}
article h3{font-size:.95rem;margin:0 0 .3rem;display:flex;gap:.5rem;align-items:baseline;flex-wrap:wrap}
h4{font-size:.85rem;margin:.6rem 0 .2rem;color:#374151}
.method{display:inline-block;min-width:3.6rem;text-align:center;padding:0 .4rem;border-radius:4px;font-size:.75rem;font-weight:700;color:#fff;background:#4b5563}
.method.get{background:#2563eb}.method.post{background:#15803d}.method.delete{background:#b91c1c}
.mono,code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em;overflow-wrap:anywhere}
.muted{color:#6b7280}
.tag{font-size:.75rem;color:#6b7280;border:1px solid #dde0e7;border-radius:999px;padding:0 .4rem}
table{border-collapse:collapse;width:100%;margin:.2rem 0}
th,td{text-align:left;vertical-align:top;padding:.2rem .5rem;border-top:1px solid #eef0f4}
th{font-weight:600;color:#6b7280;font-size:.8rem}
.required{color:#b91c1c;font-size:.75rem;margin-left:.3rem}
`

// Plain ES2020 for the browser. No template literals in it: this file holds it in one.
export const script = String.raw`"use strict";
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var METHODS = ["get", "put", "post", "patch", "delete", "head", "options", "trace"];
  var doc = null;

  // DOM nodes from text only: the document is never parsed as markup.
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "className") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  function fail(message) { var e = $("error"); e.textContent = message; e.hidden = false; }

  // A local reference, followed: "#/components/parameters/X" -> the object it names.
  function deref(value) {
    if (!value || typeof value.$ref !== "string" || value.$ref.indexOf("#/") !== 0) return value;
    var target = doc;
    value.$ref.slice(2).split("/").forEach(function (key) { target = target && target[key]; });
    return target || value;
  }
  function schemaName(ref) { return ref.slice("#/components/schemas/".length); }

  // A schema in a line: links for references, "array of", enums, alternatives.
  function typeOf(schema) {
    if (!schema || typeof schema !== "object") return el("span", { text: "any" });
    if (typeof schema.$ref === "string") {
      var name = schemaName(schema.$ref);
      return el("a", { href: "#schema-" + name, className: "mono", text: name });
    }
    if (schema.enum) return el("span", { className: "mono", text: schema.enum.join(" | ") });
    var alternatives = schema.anyOf || schema.oneOf;
    if (alternatives) {
      var span = el("span");
      alternatives.forEach(function (a, i) { if (i) span.appendChild(document.createTextNode(" or ")); span.appendChild(typeOf(a)); });
      return span;
    }
    if (schema.type === "array") return el("span", null, ["array of ", typeOf(schema.prefixItems ? schema.prefixItems[0] : schema.items)]);
    if (schema.type === "object" && schema.additionalProperties && typeof schema.additionalProperties === "object") {
      return el("span", null, ["map of ", typeOf(schema.additionalProperties)]);
    }
    return el("span", { className: "mono", text: schema.type ? String(schema.type) + (schema.format ? " (" + schema.format + ")" : "") : "any" });
  }

  // An object schema's properties as a table; other schemas in a line.
  function shapeOf(schema) {
    if (schema && schema.type === "object" && schema.properties && Object.keys(schema.properties).length > 0) {
      var required = schema.required || [];
      var rows = Object.keys(schema.properties).map(function (name) {
        return el("tr", null, [
          el("td", null, [el("code", { text: name }), required.indexOf(name) >= 0 ? el("span", { className: "required", text: "required" }) : null]),
          el("td", null, [typeOf(schema.properties[name])])
        ]);
      });
      return el("table", null, [el("tr", null, [el("th", { text: "Field" }), el("th", { text: "Type" })])].concat(rows));
    }
    var alternatives = schema && (schema.anyOf || schema.oneOf);
    if (alternatives && alternatives.every(function (a) { return a.type === "object"; })) {
      return el("div", null, [el("p", { className: "muted", text: "One of:" })].concat(alternatives.map(shapeOf)));
    }
    return el("p", null, [typeOf(schema)]);
  }

  function contentOf(content) {
    return Object.keys(content || {}).map(function (type) {
      var media = content[type];
      var events = media["x-sse-events"];
      return el("div", { className: "media" }, [
        el("p", null, [el("code", { text: type }), " ", events ? null : typeOf(media.schema)]),
        events ? el("ul", null, Object.keys(events).map(function (name) {
          return el("li", null, ["event ", el("code", { text: name }), ": ", typeOf(events[name])]);
        })) : null
      ]);
    });
  }

  function renderOperation(path, method, op) {
    var id = "op-" + op.operationId;
    $("operation-index").appendChild(el("li", null, [el("a", { href: "#" + id, text: op.operationId })]));
    var params = (op.parameters || []).map(deref);
    var responses = Object.keys(op.responses || {}).map(function (status) {
      var response = deref(op.responses[status]);
      return el("li", null, [el("code", { text: status }), " " + (response.description || "")].concat(
        status === "200" ? contentOf(response.content) : []
      ));
    });
    return el("article", { id: id, className: "operation", "data-operation-id": op.operationId, "data-method": method, "data-path": path }, [
      el("h3", null, [el("span", { className: "method " + method, text: method.toUpperCase() }), el("code", { className: "path", text: path }),
        el("span", { className: "summary", text: op.summary || "" })].concat((op.tags || []).map(function (t) { return el("span", { className: "tag", text: t }); }))),
      op.description ? el("p", { text: op.description }) : null,
      el("p", { className: "muted mono", text: "operationId: " + op.operationId }),
      params.length ? el("h4", { text: "Parameters" }) : null,
      params.length ? el("table", { className: "parameters" }, [el("tr", null, ["Name", "In", "Type", "Description"].map(function (h) { return el("th", { text: h }); }))].concat(
        params.map(function (p) {
          return el("tr", null, [
            el("td", null, [el("code", { text: p.name }), p.required ? el("span", { className: "required", text: "required" }) : null]),
            el("td", { text: p.in }), el("td", null, [typeOf(p.schema)]), el("td", { text: p.description || "" })
          ]);
        }))) : null,
      op.requestBody ? el("h4", { text: "Request body" }) : null,
      op.requestBody ? el("div", { className: "request-body" }, [el("p", { className: "mono", text: Object.keys(op.requestBody.content).join(", ") }),
        shapeOf(op.requestBody.content[Object.keys(op.requestBody.content)[0]].schema)]) : null,
      el("h4", { text: "Responses" }),
      el("ul", { className: "responses" }, responses)
    ]);
  }

  function render() {
    document.title = doc.info.title;
    $("title").textContent = doc.info.title;
    $("version").textContent = "version " + doc.info.version + " - OpenAPI " + doc.openapi;
    $("description").textContent = doc.info.description || "";
    (doc.servers || []).forEach(function (s) {
      $("servers").appendChild(el("li", null, [el("code", { className: "server", text: s.url }), " " + (s.description || "")]));
    });
    var schemes = (doc.components && doc.components.securitySchemes) || {};
    Object.keys(schemes).forEach(function (name) {
      var s = schemes[name];
      var how = s.type === "apiKey" ? "API key in " + s.in + " " + s.name : s.type === "http" ? "HTTP " + s.scheme : s.type;
      $("security-schemes").appendChild(el("li", null, [el("code", { text: name }), ": " + how]));
      $("security").hidden = false;
    });
    var operations = $("operations");
    operations.textContent = "";
    Object.keys(doc.paths || {}).forEach(function (path) {
      // In the document's order (the table's), skipping a path item's other members.
      Object.keys(doc.paths[path]).forEach(function (method) {
        if (METHODS.indexOf(method) >= 0) operations.appendChild(renderOperation(path, method, doc.paths[path][method]));
      });
    });
    var schemas = (doc.components && doc.components.schemas) || {};
    Object.keys(schemas).forEach(function (name) {
      var schema = schemas[name];
      $("schema-index").appendChild(el("li", null, [el("a", { href: "#schema-" + name, text: name })]));
      $("schemas").appendChild(el("article", { id: "schema-" + name, className: "schema", "data-schema": name }, [
        el("h3", null, [el("code", { text: name })]),
        schema.description ? el("p", { text: schema.description }) : null,
        shapeOf(schema)
      ]));
    });
    if (location.hash) { var target = document.getElementById(location.hash.slice(1)); if (target) target.scrollIntoView(); }
  }

  var path = document.querySelector("meta[name=openapi-path]").getAttribute("content");
  fetch(path, { headers: { accept: "application/json" } })
    .then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status + " for " + path);
      return r.json();
    })
    .then(function (json) { doc = json; render(); })
    .catch(function (e) { $("operations").textContent = ""; fail("Cannot read the OpenAPI document: " + e.message); });
})();
`
