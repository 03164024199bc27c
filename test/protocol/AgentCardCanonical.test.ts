/**
 * The bytes a card signature covers: RFC 8785 (its own examples), the spec's canonical form (its 8.4.1 example),
 * and the form @a2a-js/sdk 1.3 signs, checked against the SDK's own canonicalizeAgentCard on cards with empty
 * values, unknown fields and extension params.
 */
import { AgentCard, canonicalizeAgentCard } from "@a2a-js/sdk"
import { describe, expect, it } from "@effect/vitest"
import * as AgentCardCanonical from "../../src/protocol/AgentCardCanonical.ts"

describe("JCS (RFC 8785)", () => {
  it("writes numbers, strings and literals as RFC 8785 3.2.2 does", () => {
    // RFC 8785 3.2.2's input, parsed as JSON, and its output
    const input = JSON.parse(
      String
        .raw`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}`
    )
    expect(AgentCardCanonical.jcs(input)).toBe(
      String
        .raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
    )
  })

  it("sorts members by UTF-16 code units (RFC 8785 3.2.3)", () => {
    const input = JSON.parse(
      String
        .raw`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`
    )
    // (Object.keys would put "1" first: integer-like keys lead a JS object, so the order is read from the text.)
    const keys = [...AgentCardCanonical.jcs(input).matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((m) =>
      JSON.parse(`"${m[1]}"`)
    )
    expect(keys).toEqual(["\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"])
  })

  it("number edge cases (ES Number serialisation)", () => {
    expect(AgentCardCanonical.jcs([-0, 1e21, 1e-7, 0.000001, 9007199254740993, 5e-324])).toBe(
      "[0,1e+21,1e-7,0.000001,9007199254740992,5e-324]"
    )
    expect(AgentCardCanonical.jcs({ a: undefined, b: [1, 2], c: { z: 1, y: [] } })).toBe(
      `{"b":[1,2],"c":{"y":[],"z":1}}`
    )
  })
})

const minimal = {
  name: "Example Agent",
  description: "",
  supportedInterfaces: [{
    url: "https://a.example/rpc",
    protocolBinding: "JSONRPC",
    protocolVersion: "1.0",
    tenant: ""
  }],
  version: "1.0.0",
  capabilities: { streaming: false, pushNotifications: false, extensions: [] },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: []
}

describe("the spec's canonical form (8.4.1)", () => {
  it("gives the spec's example", () => {
    const fragment = {
      name: "Example Agent",
      description: "",
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: []
    }
    expect(AgentCardCanonical.canonical(fragment)).toBe(
      `{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}`
    )
  })

  it("keeps REQUIRED and set optional fields, drops defaults of the others and the signatures", () => {
    const card = {
      ...minimal,
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description: "", bearerFormat: "" } } },
      documentationUrl: "",
      signatures: [{ protected: "x", signature: "y" }],
      futureField: { kept: "" }
    }
    expect(JSON.parse(AgentCardCanonical.canonical(card))).toEqual({
      name: "Example Agent",
      description: "",
      supportedInterfaces: [{ url: "https://a.example/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      version: "1.0.0",
      capabilities: { streaming: false, pushNotifications: false },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [],
      securityRequirements: [{ schemes: { bearer: {} } }],
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
      documentationUrl: "",
      futureField: { kept: "" }
    })
  })
})

describe("the SDK's form", () => {
  const cards: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ["minimal, with empty values", minimal],
    ["with security and an empty scope list", {
      ...minimal,
      description: "Has auth",
      securitySchemes: {
        bearer: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "JWT" } },
        oauth: {
          oauth2SecurityScheme: {
            flows: { clientCredentials: { tokenUrl: "https://idp.example/token", scopes: { "a2a.read": "read" } } }
          }
        }
      },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }, { schemes: { oauth: { list: ["a2a.read"] } } }]
    }],
    ["with extensions, params, provider, skills and unknown fields", {
      ...minimal,
      provider: { url: "https://p.example", organization: "P" },
      capabilities: {
        streaming: true,
        extendedAgentCard: false,
        extensions: [{ uri: "urn:x", required: false, params: { n: 0, flag: false, empty: "", list: [1.5, "é"] } }]
      },
      skills: [{ id: "s", name: "S", description: "d", tags: ["t"], examples: [], inputModes: ["text/plain"] }],
      iconUrl: "https://p.example/i.png",
      notInTheSchema: "dropped by the SDK"
    }]
  ]
  for (const [name, card] of cards) {
    it(`matches @a2a-js/sdk canonicalizeAgentCard: ${name}`, () => {
      // what the SDK signs and verifies: its in-memory card, read from the JSON
      expect(AgentCardCanonical.sdkCanonical(card)).toBe(canonicalizeAgentCard(AgentCard.fromJSON(card)))
    })
  }

  it("forms: one when the two agree, the spec's first when they differ", () => {
    const plain = { ...minimal, description: "d", skills: [{ id: "s", name: "S", description: "d", tags: ["t"] }] }
    expect(AgentCardCanonical.forms(plain)).toEqual([{ form: "spec", payload: AgentCardCanonical.canonical(plain) }])
    expect(AgentCardCanonical.forms(minimal)).toEqual([
      { form: "spec", payload: AgentCardCanonical.canonical(minimal) },
      { form: "sdk", payload: AgentCardCanonical.sdkCanonical(minimal) }
    ])
  })
})
