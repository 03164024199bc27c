/**
 * The API docs page's script (served as `app.js`; `npm run pages` bundles it into internal/ApiDocsPage.ts): reads
 * the OpenAPI document from this origin and renders it: servers, security, each operation (method, path, summary,
 * parameters, request body, responses, stream events) and each component schema (its properties, or its
 * variants), with every `$ref` a link to its schema. Everything is rendered with `textContent` and DOM nodes, never
 * as markup; the route's Content-Security-Policy allows only this page's same-origin files.
 */
"use strict"
import { $, el } from "../Dom.ts"

// --- what the page reads: an OpenAPI 3.1 document, every field optional (it comes from the network) ----------

interface Schema {
  readonly $ref?: string
  readonly type?: unknown
  readonly format?: string
  readonly description?: string
  readonly enum?: ReadonlyArray<unknown>
  readonly anyOf?: ReadonlyArray<Schema>
  readonly oneOf?: ReadonlyArray<Schema>
  readonly items?: Schema
  readonly prefixItems?: ReadonlyArray<Schema>
  readonly additionalProperties?: Schema | boolean
  readonly properties?: Readonly<Record<string, Schema>>
  readonly required?: ReadonlyArray<string>
}
interface MediaType {
  readonly schema?: Schema
  readonly "x-sse-events"?: Readonly<Record<string, Schema>>
}
type Content = Readonly<Record<string, MediaType>>
interface Parameter {
  readonly $ref?: string
  readonly name?: string
  readonly in?: string
  readonly required?: boolean
  readonly description?: string
  readonly schema?: Schema
}
interface ResponseObject {
  readonly $ref?: string
  readonly description?: string
  readonly content?: Content
}
interface Operation {
  readonly operationId?: string
  readonly summary?: string
  readonly description?: string
  readonly tags?: ReadonlyArray<string>
  readonly parameters?: ReadonlyArray<Parameter>
  readonly requestBody?: { readonly content: Content }
  readonly responses?: Readonly<Record<string, ResponseObject>>
}
interface SecurityScheme {
  readonly type?: string
  readonly in?: string
  readonly name?: string
  readonly scheme?: string
}
interface Document {
  readonly openapi?: string
  readonly info: { readonly title: string; readonly version?: string; readonly description?: string }
  readonly servers?: ReadonlyArray<{ readonly url?: string; readonly description?: string }>
  readonly paths?: Readonly<Record<string, Readonly<Record<string, Operation>>>>
  readonly components?: {
    readonly schemas?: Readonly<Record<string, Schema>>
    readonly securitySchemes?: Readonly<Record<string, SecurityScheme>>
  }
}

const METHODS = ["get", "put", "post", "patch", "delete", "head", "options", "trace"]
let doc: Document | null = null

function fail(message: string) {
  const e = $("error")
  e.textContent = message
  e.hidden = false
}

// A local reference, followed: "#/components/parameters/X" -> the object it names.
function deref<A extends { readonly $ref?: string }>(value: A): A {
  if (!value || typeof value.$ref !== "string" || value.$ref.indexOf("#/") !== 0) return value
  let target: unknown = doc
  value.$ref.slice(2).split("/").forEach((key) => {
    target = target && (target as Record<string, unknown>)[key]
  })
  return (target || value) as A
}
function schemaName(ref: string) {
  return ref.slice("#/components/schemas/".length)
}

// A schema in a line: links for references, "array of", enums, alternatives.
function typeOf(schema: Schema | undefined): HTMLElement {
  if (!schema || typeof schema !== "object") return el("span", { text: "any" })
  if (typeof schema.$ref === "string") {
    const name = schemaName(schema.$ref)
    return el("a", { href: "#schema-" + name, className: "mono", text: name })
  }
  if (schema.enum) return el("span", { className: "mono", text: schema.enum.join(" | ") })
  const alternatives = schema.anyOf || schema.oneOf
  if (alternatives) {
    const span = el("span")
    alternatives.forEach((a, i) => {
      if (i) span.appendChild(document.createTextNode(" or "))
      span.appendChild(typeOf(a))
    })
    return span
  }
  if (schema.type === "array") {
    return el("span", null, ["array of ", typeOf(schema.prefixItems ? schema.prefixItems[0] : schema.items)])
  }
  if (schema.type === "object" && schema.additionalProperties && typeof schema.additionalProperties === "object") {
    return el("span", null, ["map of ", typeOf(schema.additionalProperties)])
  }
  return el("span", {
    className: "mono",
    text: schema.type ? String(schema.type) + (schema.format ? " (" + schema.format + ")" : "") : "any"
  })
}

// An object schema's properties as a table; other schemas in a line.
function shapeOf(schema: Schema | undefined): HTMLElement {
  const properties = schema && schema.type === "object" ? schema.properties : undefined
  if (schema && properties && Object.keys(properties).length > 0) {
    const required = schema.required || []
    const rows = Object.keys(properties).map((name) =>
      el("tr", null, [
        el("td", null, [
          el("code", { text: name }),
          required.indexOf(name) >= 0 ? el("span", { className: "required", text: "required" }) : null
        ]),
        el("td", null, [typeOf(properties[name])])
      ])
    )
    return el("table", null, [el("tr", null, [el("th", { text: "Field" }), el("th", { text: "Type" })]), ...rows])
  }
  const alternatives = schema && (schema.anyOf || schema.oneOf)
  if (alternatives && alternatives.every((a) => a.type === "object")) {
    return el("div", null, [el("p", { className: "muted", text: "One of:" }), ...alternatives.map(shapeOf)])
  }
  return el("p", null, [typeOf(schema)])
}

function contentOf(content: Content | undefined): Array<HTMLElement> {
  const media = content || {}
  return Object.keys(media).map((type) => {
    const events = media[type]!["x-sse-events"]
    return el("div", { className: "media" }, [
      el("p", null, [el("code", { text: type }), " ", events ? null : typeOf(media[type]!.schema)]),
      events
        ? el(
          "ul",
          null,
          Object.keys(events).map((name) =>
            el("li", null, ["event ", el("code", { text: name }), ": ", typeOf(events[name])])
          )
        )
        : null
    ])
  })
}

function renderOperation(path: string, method: string, op: Operation) {
  const id = "op-" + op.operationId
  $("operation-index").appendChild(el("li", null, [el("a", { href: "#" + id, text: op.operationId ?? "" })]))
  const params = (op.parameters || []).map(deref)
  const opResponses = op.responses || {}
  const responses = Object.keys(opResponses).map((status) => {
    const response = deref(opResponses[status]!)
    return el("li", null, [
      el("code", { text: status }),
      " " + (response.description || ""),
      ...(status === "200" ? contentOf(response.content) : [])
    ])
  })
  const body = op.requestBody
  return el("article", {
    id,
    className: "operation",
    "data-operation-id": String(op.operationId),
    "data-method": method,
    "data-path": path
  }, [
    el("h3", null, [
      el("span", { className: "method " + method, text: method.toUpperCase() }),
      el("code", { className: "path", text: path }),
      el("span", { className: "summary", text: op.summary || "" }),
      ...(op.tags || []).map((t) => el("span", { className: "tag", text: t }))
    ]),
    op.description ? el("p", { text: op.description }) : null,
    el("p", { className: "muted mono", text: "operationId: " + op.operationId }),
    params.length ? el("h4", { text: "Parameters" }) : null,
    params.length
      ? el("table", { className: "parameters" }, [
        el("tr", null, ["Name", "In", "Type", "Description"].map((h) => el("th", { text: h }))),
        ...params.map((p) =>
          el("tr", null, [
            el("td", null, [
              el("code", { text: p.name ?? "" }),
              p.required ? el("span", { className: "required", text: "required" }) : null
            ]),
            el("td", { text: p.in ?? "" }),
            el("td", null, [typeOf(p.schema)]),
            el("td", { text: p.description || "" })
          ])
        )
      ])
      : null,
    body ? el("h4", { text: "Request body" }) : null,
    body
      ? el("div", { className: "request-body" }, [
        el("p", { className: "mono", text: Object.keys(body.content).join(", ") }),
        shapeOf(body.content[Object.keys(body.content)[0]!]!.schema)
      ])
      : null,
    el("h4", { text: "Responses" }),
    el("ul", { className: "responses" }, responses)
  ])
}

function render(doc: Document) {
  document.title = doc.info.title
  $("title").textContent = doc.info.title
  $("version").textContent = "version " + doc.info.version + " - OpenAPI " + doc.openapi
  $("description").textContent = doc.info.description || ""
  ;(doc.servers || []).forEach((s) => {
    $("servers").appendChild(
      el("li", null, [el("code", { className: "server", text: s.url ?? "" }), " " + (s.description || "")])
    )
  })
  const schemes = (doc.components && doc.components.securitySchemes) || {}
  Object.keys(schemes).forEach((name) => {
    const s = schemes[name]!
    const how = s.type === "apiKey"
      ? "API key in " + s.in + " " + s.name
      : s.type === "http"
      ? "HTTP " + s.scheme
      : s.type
    $("security-schemes").appendChild(el("li", null, [el("code", { text: name }), ": " + how]))
    $("security").hidden = false
  })
  const operations = $("operations")
  operations.textContent = ""
  const paths = doc.paths || {}
  Object.keys(paths).forEach((path) => {
    // In the document's order (the table's), skipping a path item's other members.
    Object.keys(paths[path]!).forEach((method) => {
      if (METHODS.indexOf(method) >= 0) operations.appendChild(renderOperation(path, method, paths[path]![method]!))
    })
  })
  const schemas = (doc.components && doc.components.schemas) || {}
  Object.keys(schemas).forEach((name) => {
    const schema = schemas[name]!
    $("schema-index").appendChild(el("li", null, [el("a", { href: "#schema-" + name, text: name })]))
    $("schemas").appendChild(el("article", { id: "schema-" + name, className: "schema", "data-schema": name }, [
      el("h3", null, [el("code", { text: name })]),
      schema.description ? el("p", { text: schema.description }) : null,
      shapeOf(schema)
    ]))
  })
  if (location.hash) {
    const target = document.getElementById(location.hash.slice(1))
    if (target) target.scrollIntoView()
  }
}

const path = document.querySelector("meta[name=openapi-path]")!.getAttribute("content")!
fetch(path, { headers: { accept: "application/json" } })
  .then((r) => {
    if (!r.ok) throw new Error("HTTP " + r.status + " for " + path)
    return r.json() as Promise<Document>
  })
  .then((json) => {
    doc = json
    render(json)
  })
  .catch((e: unknown) => {
    $("operations").textContent = ""
    fail("Cannot read the OpenAPI document: " + (e as { message?: string }).message)
  })
