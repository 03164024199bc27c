/**
 * `effect-a2a serve`: runs the demo agent (or, with `--agent <file>`, the user's agent module: see AgentModule;
 * with `--model PROVIDER:MODEL`, an LLM agent on that model: see ModelAgent)
 * with every binding live (agent card, JSON-RPC, HTTP+JSON/REST)
 * on the durable stores (an embedded SQLite file under A2A_DATA_DIR by default, PostgreSQL when
 * A2A_DATABASE_URL is set; `--memory` keeps everything in memory), and the dev UI at /_dev (DevUi: on for the
 * demo, `--ui` for an agent module; `--no-ui` / A2A_DEV_UI), the OpenAPI document of the HTTP+JSON binding at
 * /openapi.json and its page at /docs (ApiDocs: on; `--no-api-docs` / A2A_API_DOCS=false). Flags win over the
 * environment (HOST, PORT, A2A_PREFIX, A2A_PUBLIC_URL, A2A_AUTH..., see NodeA2AServer.serveConfig and Auth.layerConfig; `OTEL_*` export traces and metrics, see
 * Observability.layerOtlpConfig). Runs until interrupted: SIGINT / SIGTERM close the server gracefully (in-flight
 * requests finish, open streams end).
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as NodeA2AServer from "../node/NodeA2AServer.ts"
import type { ServeOptions } from "../node/NodeA2AServer.ts"
import * as WebhookPush from "../node/push/WebhookPush.ts"
import * as ApiDocs from "../pages/ApiDocs.ts"
import * as DevUi from "../pages/DevUi.ts"
import type { CardTemplate } from "../server/AgentCardConfig.ts"
import type * as AgentExecutor from "../server/AgentExecutor.ts"
import * as CardSigner from "../server/CardSigner.ts"
import * as DemoAgent from "../server/DemoAgent.ts"
import * as MemoryMessageReceipts from "../server/memory/MemoryMessageReceipts.ts"
import * as MemoryPushConfigStore from "../server/memory/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "../server/memory/MemoryTaskStore.ts"
import * as Observability from "../server/Observability.ts"
import * as DurableServer from "../sql/DurableServer.ts"
import * as V01Server from "../v0_1/server/V01Server.ts"
import * as AgentModule from "./AgentModule.ts"
import type * as ModelAgent from "./ModelAgent.ts"
import * as ServeFailure from "./ServeFailure.ts"
import * as WatchMode from "./WatchMode.ts"

const pathFlag = (name: string, description: string) =>
  Flag.String(name).pipe(
    Flag.withDescription(description),
    Flag.filter((s) => s.startsWith("/"), (s) => `--${name} must start with "/", got "${s}"`),
    Flag.optional
  )

/** A flag of the LLM agent that `--model` serves. */
const withModel = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(`With --model: ${description}`), Flag.optional)

/**
 * The flags of `serve`, as parsed.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServeFlags {
  readonly host: Option.Option<string>
  readonly port: Option.Option<number>
  readonly prefix: Option.Option<string>
  readonly publicUrl: Option.Option<string>
  /** Serve gRPC on this port too (absent: A2A_GRPC_PORT, else no gRPC). */
  readonly grpcPort?: Option.Option<number> | undefined
  readonly memory: boolean
  /**
   * Whether this node runs agents (default true); false (`--no-execute`) only takes requests, and the cluster
   * engine runs their turns on the other nodes (needs A2A_DATABASE_URL).
   */
  readonly execute?: boolean | undefined
  /** The user's agent module; None (or absent) serves the demo agent. */
  readonly agent?: Option.Option<string> | undefined
  /** Restart the server when a file it loaded changes (development). */
  readonly watch?: boolean | undefined
  /** Serve the dev UI (`--ui` / `--no-ui`); None leaves A2A_DEV_UI, then the agent's default. */
  readonly ui?: Option.Option<boolean> | undefined
  /** Serve the OpenAPI document and its page (`--api-docs` / `--no-api-docs`); None leaves A2A_API_DOCS (on). */
  readonly apiDocs?: Option.Option<boolean> | undefined
  /** Also serve the agent as an MCP tool at /mcp (HostedMcp). */
  readonly mcp?: boolean | undefined
  /** An LLM agent on this `provider:model` (see ModelAgent), instead of the demo. */
  readonly model?: Option.Option<string> | undefined
  /** The LLM agent's system prompt, from this file. */
  readonly instructions?: Option.Option<string> | undefined
  /** The LLM agent's card: a JSON file, then these flags over it. */
  readonly card?: Option.Option<string> | undefined
  readonly name?: Option.Option<string> | undefined
  readonly description?: Option.Option<string> | undefined
  readonly skill?: ReadonlyArray<string> | undefined
  /** The LLM agent's MCP servers: command lines or http(s) URLs. */
  readonly mcpServer?: ReadonlyArray<string> | undefined
  /** A2A agents the LLM agent may delegate to. */
  readonly delegate?: ReadonlyArray<string> | undefined
  /** Serve the A2A 1.1 draft (`--protocol-draft 1.1`); None (or absent) leaves A2A_PROTOCOL_DRAFT. */
  readonly protocolDraft?: Option.Option<"1.1"> | undefined
}

/**
 * The flags as serve options (absent flags leave the environment's values).
 *
 * @since 0.1.0
 * @category conversions
 */
export const toOptions = (flags: ServeFlags): ServeOptions => {
  const prefix = Option.getOrUndefined(flags.prefix) as `/${string}` | undefined
  return {
    host: Option.getOrUndefined(flags.host),
    port: Option.getOrUndefined(flags.port),
    jsonRpcPath: prefix,
    restPath: prefix,
    publicUrl: Option.getOrUndefined(flags.publicUrl),
    devUi: flags.ui !== undefined ? Option.getOrUndefined(flags.ui) : undefined,
    apiDocs: flags.apiDocs !== undefined ? Option.getOrUndefined(flags.apiDocs) : undefined,
    grpcPort: flags.grpcPort === undefined ? undefined : Option.getOrUndefined(flags.grpcPort),
    mcp: flags.mcp
  }
}

/**
 * The agent `serve` runs: its card template, its executor layer and whether the dev UI is on by default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Agent<E> {
  readonly card: CardTemplate
  readonly executor: Layer.Layer<AgentExecutor.AgentExecutor, E>
  /** Whether the dev UI is served when neither `--ui` / `--no-ui` nor A2A_DEV_UI says. Default false. */
  readonly devUi?: boolean | undefined
}

/**
 * The server: A2A core (the agent, durable or memory stores, Auth from the environment) behind the bindings.
 *
 * @since 0.1.0
 * @category utils
 */
export const server = <E>(flags: ServeFlags, agent: Agent<E>) => {
  const draft = flags.protocolDraft !== undefined && Option.isSome(flags.protocolDraft) ? true : undefined
  const core = { card: agent.card, executor: agent.executor, push: WebhookPush.layerConfig, a2a11: draft }
  return NodeA2AServer.layerConfig(toOptions(flags), { devUi: agent.devUi ?? false, releaseMemoryWhenIdle: true }).pipe(
    Layer.provide(
      (flags.memory
        ? DurableServer.layerWithStores(
          Layer.mergeAll(MemoryTaskStore.layerConfig, MemoryPushConfigStore.layer, MemoryMessageReceipts.layerConfig),
          core
        )
        : DurableServer.layerConfig(flags.execute === false ? { ...core, execute: false } : core)).pipe(
          Layer.provide(CardSigner.layerConfig)
        )
    ),
    // A2A 0.3 and 0.1 beside 1.0, unless A2A_PROTOCOL_VERSIONS leaves them out.
    Layer.provide(V01Server.layer),
    // Spans and metrics over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT (or a per-signal one) is set; else nothing.
    Layer.provide(Observability.layerOtlpConfig.pipe(Layer.provide(FetchHttpClient.layer)))
  )
}

/** The demo agent, with the dev UI on unless turned off. */
const demo: Agent<unknown> = { card: DemoAgent.card, executor: DemoAgent.layerConfig, devUi: true }

/**
 * The demo server: `server` with the demo agent.
 *
 * @since 0.1.0
 * @category utils
 */
export const demoServer = (flags: ServeFlags) => server(flags, demo)

/** The address the server was asked to listen on, for error messages (flags win over HOST / PORT). */
const wantedAddress = (flags: ServeFlags) => ({
  host: Option.getOrElse(flags.host, () => process.env["HOST"] ?? NodeA2AServer.DEFAULT_HOST),
  port: Option.getOrElse(flags.port, (): number | string => process.env["PORT"] ?? NodeA2AServer.DEFAULT_PORT)
})

/**
 * Runs the server until interrupted. Start-up failures (configuration, listening, stores, the agent module)
 * become one line on stderr and a non-zero exit; defects still show their stack.
 *
 * @since 0.1.0
 * @category utils
 */
export const serve = (flags: ServeFlags) =>
  flags.watch === true && !WatchMode.isWatched()
    ? Effect.flatMap(WatchMode.run, (code) => code === 0 ? Effect.void : Effect.sync(() => (process.exitCode = code)))
    : serveHere(flags)

const given = <A>(flag: Option.Option<A> | undefined): A | undefined =>
  flag === undefined ? undefined : Option.getOrUndefined(flag)

/**
 * The agent the flags ask for: an agent module, an LLM agent (`--model`), or the demo (`worker` too).
 *
 * @since 0.1.0
 * @category utils
 */
export const chooseAgent = (
  flags: ServeFlags
): Effect.Effect<Agent<unknown>, AgentModule.AgentModuleError | Effect.Error<ReturnType<typeof ModelAgent.load>>> => {
  const agentFile = given(flags.agent)
  const model = given(flags.model)
  const modelFlags = {
    instructions: given(flags.instructions),
    card: given(flags.card),
    name: given(flags.name),
    description: given(flags.description),
    skills: flags.skill !== undefined && flags.skill.length > 0 ? flags.skill : undefined,
    mcpServers: flags.mcpServer !== undefined && flags.mcpServer.length > 0 ? flags.mcpServer : undefined,
    delegates: flags.delegate !== undefined && flags.delegate.length > 0 ? flags.delegate : undefined
  }
  if (model === undefined) {
    const stray = Object.entries(modelFlags).find(([, value]) => value !== undefined)
    if (stray !== undefined) {
      const flag = { skills: "skill", mcpServers: "mcp-server", delegates: "delegate" }[stray[0]] ?? stray[0]
      return Effect.fail(new AgentModule.AgentModuleError({ message: `--${flag} goes with --model PROVIDER:MODEL` }))
    }
    return agentFile === undefined ? Effect.succeed(demo) : AgentModule.load(agentFile)
  }
  if (agentFile !== undefined) {
    return Effect.fail(new AgentModule.AgentModuleError({ message: "--model and --agent cannot be used together" }))
  }
  return Effect.flatMap(
    Effect.promise(() => import("./ModelAgent.ts")),
    (loaded) => loaded.load({ model, ...modelFlags })
  )
}

const serveHere = (flags: ServeFlags) =>
  Effect.gen(function*() {
    const agent = yield* chooseAgent(flags)
    return yield* Layer.launch(server(flags, agent))
  }).pipe(
    Effect.asVoid,
    Effect.mapError(ServeFailure.toUserError(wantedAddress(flags)))
  )

/**
 * `effect-a2a serve`: serves an agent (the demo, a module with `--agent`, or an LLM with `--model`).
 *
 * @since 0.1.0
 * @category commands
 */
export const serveCommand = Command.make(
  "serve",
  {
    host: Flag.String("host").pipe(
      Flag.withDescription(`Address to listen on (default ${NodeA2AServer.DEFAULT_HOST}; 0.0.0.0 for every interface)`),
      Flag.optional
    ),
    port: Flag.Int("port").pipe(
      Flag.withDescription(`Port to listen on (default ${NodeA2AServer.DEFAULT_PORT}; 0 picks a free port)`),
      Flag.filter((n) => n >= 0 && n <= 65535, (n) => `--port must be between 0 and 65535, got ${n}`),
      Flag.optional
    ),
    grpcPort: Flag.Int("grpc-port").pipe(
      Flag.withDescription(
        "Also serve gRPC (lf.a2a.v1.A2AService) on this port, listed in the card; 0 picks a free one"
      ),
      Flag.filter((n) => n >= 0 && n <= 65535, (n) => `--grpc-port must be between 0 and 65535, got ${n}`),
      Flag.optional
    ),
    prefix: pathFlag("prefix", "Mount JSON-RPC and REST under this path (e.g. /a2a); the card stays at the root"),
    publicUrl: Flag.String("public-url").pipe(
      Flag.withDescription(
        "Public origin for the card's URLs, when a proxy rewrites Host (e.g. https://agent.example.com)"
      ),
      Flag.optional
    ),
    agent: Flag.String("agent").pipe(
      Flag.withDescription(
        "Serve your agent: a .ts or .js module exporting an AgentExecutor (or a Layer / Effect building one) " +
          "as default or `agent`, and optionally its `card`"
      ),
      Flag.optional
    ),
    watch: Flag.Boolean("watch").pipe(
      Flag.withDescription("Restart the server when the agent module (or a file it imports) changes: for development"),
      Flag.withDefault(false)
    ),
    ui: Flag.Boolean("ui").pipe(
      Flag.withDescription(
        `Serve the dev UI at ${DevUi.DEFAULT_PATH} (--no-ui: do not); default on for the demo, off with --agent ` +
          "(A2A_DEV_UI: true or false)"
      ),
      Flag.optional
    ),
    apiDocs: Flag.Boolean("api-docs").pipe(
      Flag.withDescription(
        `Serve the OpenAPI document of the HTTP+JSON binding at ${ApiDocs.DEFAULT_DOCUMENT_PATH} and a page that ` +
          `shows it at ${ApiDocs.DEFAULT_PATH} (--no-api-docs: do not); default on (A2A_API_DOCS: true or false)`
      ),
      Flag.optional
    ),
    mcp: Flag.Boolean("mcp").pipe(
      Flag.withDescription(
        "Also serve the agent as an MCP tool (streamable HTTP) at /mcp on the same port, behind the same auth"
      ),
      Flag.withDefault(false)
    ),
    model: Flag.String("model").pipe(
      Flag.withDescription(
        "Serve an LLM agent on this model: openai:MODEL (OPENAI_API_KEY), anthropic:MODEL (ANTHROPIC_API_KEY) or " +
          "openai-compat:MODEL (any OpenAI Chat Completions server at OPENAI_BASE_URL: Ollama, vLLM, llama.cpp)"
      ),
      Flag.optional
    ),
    instructions: withModel("instructions", "the system prompt, from this file"),
    card: withModel("card", "the agent card, a JSON file (name, description, skills, ...)"),
    name: withModel("name", "the card's name (default: the model's)"),
    description: withModel("description", "the card's description"),
    skill: Flag.String("skill").pipe(
      Flag.withDescription("With --model: a skill of the card, \"ID: DESCRIPTION\" (repeat for more)"),
      Flag.atLeast(0)
    ),
    mcpServer: Flag.String("mcp-server").pipe(
      Flag.withDescription(
        "With --model: an MCP server whose tools the model gets, \"CMD ARGS\" (stdio) or an http(s) URL " +
          "(repeat for more)"
      ),
      Flag.atLeast(0)
    ),
    delegate: Flag.String("delegate").pipe(
      Flag.withDescription("With --model: an A2A agent's URL the model may delegate to, as a tool (repeat for more)"),
      Flag.atLeast(0)
    ),
    protocolDraft: Flag.Literals("protocol-draft", ["1.1"]).pipe(
      Flag.withDescription(
        "Also serve this draft of the next A2A version (1.1: task generations, long-poll GetTask, conditional " +
          "sends); it may still change. Default: A2A_PROTOCOL_DRAFT, else none"
      ),
      Flag.optional
    ),
    memory: Flag.Boolean("memory").pipe(
      Flag.withDescription(
        "Keep tasks and push configs in memory only (default: SQLite in A2A_DATA_DIR, or A2A_DATABASE_URL)"
      ),
      Flag.withDefault(false)
    ),
    execute: Flag.Boolean("execute").pipe(
      Flag.withDescription(
        "Run agents on this node (default); --no-execute only takes requests, whose turns the cluster engine runs " +
          "on the `worker` and `serve` nodes sharing A2A_DATABASE_URL"
      ),
      Flag.withDefault(true)
    )
  },
  serve
).pipe(
  Command.withDescription(
    "Run an A2A agent (the demo, yours with --agent, or an LLM with --model) over JSON-RPC and HTTP+JSON/REST"
  ),
  Command.withExamples([
    { command: "effect-a2a serve", description: "Serve on http://127.0.0.1:8080" },
    {
      command: "effect-a2a serve --host 0.0.0.0 --port 9000 --prefix /a2a",
      description: "Every interface, under /a2a"
    },
    { command: "effect-a2a serve --agent ./my-agent.ts", description: "Serve your own agent module" },
    { command: "effect-a2a serve --agent ./my-agent.ts --ui", description: "With the dev UI at /_dev" },
    { command: "effect-a2a serve --grpc-port 50051", description: "Serve gRPC too, on port 50051" },
    { command: "effect-a2a serve --mcp", description: "Serve MCP too, at http://127.0.0.1:8080/mcp" },
    {
      command: "effect-a2a serve --model openai:gpt-4o-mini --instructions ./prompt.md --name Helper",
      description: "Serve an LLM agent on OpenAI's gpt-4o-mini (OPENAI_API_KEY)"
    },
    {
      command: "effect-a2a serve --model openai:gpt-4o-mini --delegate http://127.0.0.1:8081 " +
        "--mcp-server \"npx -y @modelcontextprotocol/server-memory\"",
      description: "An LLM agent that delegates to an A2A agent and uses an MCP server's tools"
    },
    {
      command: "OPENAI_BASE_URL=http://127.0.0.1:11434/v1 effect-a2a serve --model openai-compat:llama3.2",
      description: "An LLM agent on a local Ollama"
    },
    {
      command: "effect-a2a serve --agent ./my-agent.ts --memory --watch",
      description: "Develop it: the server restarts when the module changes"
    },
    {
      command: "A2A_DATABASE_URL=postgres://a2a@db/a2a effect-a2a serve --agent ./my-agent.ts",
      description: "One of several nodes on one PostgreSQL: any node takes any request, the cluster engine spreads " +
        "the turns (A2A_CLUSTER=false: each node runs the turns of the requests it takes)"
    }
  ])
)
