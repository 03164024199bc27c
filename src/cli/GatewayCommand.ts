/**
 * `effect-a2a gateway`: a registry of A2A agents behind one front door (see `effect-a2a/gateway`). Run alone it
 * serves the gateway (its agents as MCP tools at `/mcp` too); with `--stdio` it serves the registry as MCP tools on
 * stdin/stdout; `add`, `ls` and `rm` manage the agents of a running gateway through its admin API.
 *
 * @since 0.2.0
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"

const runModule = Effect.promise(() => import("./GatewayRun.ts"))

const adminTokenFlag = Flag.Redacted("admin-token").pipe(
  Flag.withDescription("The admin API's token (default: A2A_GATEWAY_ADMIN_TOKEN)"),
  Flag.withFallbackConfig(Config.Redacted("A2A_GATEWAY_ADMIN_TOKEN")),
  Flag.optional
)

/**
 * `--strict`, shared with `mcp`: refuse agents with the known faults of agents in the wild instead of repairing them.
 *
 * @since 0.2.0
 * @category flags
 */
export const strictFlag = Flag.Boolean("strict").pipe(
  Flag.withDescription(
    "Refuse agents with the known faults of agents in the wild (a 0.3 card without protocolVersion, a Task " +
      "without kind, SSE data with a stray control character) instead of reading them repaired " +
      "(also A2A_STRICT=true)"
  ),
  Flag.withDefault(false)
)

const gatewayFlag = Flag.String("gateway").pipe(
  Flag.withDescription("The running gateway's base URL (default: A2A_GATEWAY_URL, else http://127.0.0.1:8080)"),
  Flag.withFallbackConfig(Config.String("A2A_GATEWAY_URL")),
  Flag.withDefault("http://127.0.0.1:8080")
)

const adminOptions = (flags: {
  readonly gateway: string
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
}) => ({ gateway: flags.gateway, adminToken: Option.getOrUndefined(flags.adminToken) })

const addCommand = Command.make(
  "add",
  {
    url: Argument.String("url").pipe(Argument.withDescription("The agent's base URL (or its card's URL)")),
    name: Flag.String("name").pipe(
      Flag.withDescription("Its name at the gateway (default: from its card)"),
      Flag.optional
    ),
    kind: Flag.Literals("kind", ["a2a", "rest-passthrough"]).pipe(
      Flag.withDescription("What the URL is (default a2a)"),
      Flag.optional
    ),
    credentials: Flag.String("credentials").pipe(
      Flag.withDescription(`Its credentials as JSON, e.g. '{"bearer": "..."}' (sealed by the gateway)`),
      Flag.optional
    ),
    allow: Flag.String("allow").pipe(
      Flag.withDescription("A principal who may see and call it (repeat for more; default: everyone)"),
      Flag.atLeast(0)
    ),
    gateway: gatewayFlag,
    adminToken: adminTokenFlag
  },
  (flags) =>
    Effect.gen(function*() {
      const m = yield* runModule
      yield* m.add(adminOptions(flags), {
        url: flags.url,
        name: Option.getOrUndefined(flags.name),
        kind: Option.getOrUndefined(flags.kind),
        credentials: Option.getOrUndefined(flags.credentials),
        allow: flags.allow
      })
    })
).pipe(Command.withDescription("Register an agent with a running gateway"))

const lsCommand = Command.make(
  "ls",
  { gateway: gatewayFlag, adminToken: adminTokenFlag },
  (flags) =>
    Effect.gen(function*() {
      const m = yield* runModule
      yield* m.list(adminOptions(flags))
    })
).pipe(Command.withDescription("List a running gateway's agents: name, kind, URL"))

const rmCommand = Command.make(
  "rm",
  {
    name: Argument.String("name").pipe(Argument.withDescription("The agent's name at the gateway")),
    gateway: gatewayFlag,
    adminToken: adminTokenFlag
  },
  (flags) =>
    Effect.gen(function*() {
      const m = yield* runModule
      yield* m.remove(adminOptions(flags), flags.name)
    })
).pipe(Command.withDescription("Remove an agent from a running gateway"))

/**
 * The `gateway` command and its `add`, `ls`, `rm` subcommands.
 *
 * @since 0.2.0
 * @category commands
 */
export const gatewayCommand = Command.make(
  "gateway",
  {
    host: Flag.String("host").pipe(Flag.withDescription("The address to listen on (default 127.0.0.1)"), Flag.optional),
    port: Flag.Int("port").pipe(
      Flag.withDescription("The port to listen on (default 8080; 0 picks a free port)"),
      Flag.filter((n) => n >= 0 && n <= 65535, (n) => `--port must be between 0 and 65535, got ${n}`),
      Flag.optional
    ),
    memory: Flag.Boolean("memory").pipe(
      Flag.withDescription("Keep the registry in memory (default: SQLite in A2A_DATA_DIR, or A2A_DATABASE_URL)"),
      Flag.withDefault(false)
    ),
    adminToken: adminTokenFlag,
    adminPrincipal: Flag.String("admin-principal").pipe(
      Flag.withDescription(
        "A principal the gateway's Auth (A2A_AUTH) authenticates that may use the admin API with its own " +
          "credentials (repeat for more; default: A2A_GATEWAY_ADMINS, comma-separated)"
      ),
      Flag.atLeast(0)
    ),
    stdio: Flag.Boolean("stdio").pipe(
      Flag.withDescription(
        "Serve the registry as MCP tools on stdin/stdout (for an MCP client that spawns the gateway) instead of " +
          "HTTP; agents are managed by a gateway on the same store. Over HTTP the tools are at /mcp"
      ),
      Flag.withDefault(false)
    ),
    timeout: Flag.Finite("timeout").pipe(
      Flag.withDescription("Seconds to wait for a card, and for an agent to answer a call; default 10"),
      Flag.filter((n) => n > 0, (n) => `--timeout must be a positive number of seconds, got ${n}`),
      Flag.optional
    ),
    strict: strictFlag
  },
  (flags) =>
    Effect.gen(function*() {
      const m = yield* runModule
      return yield* m.run({
        host: Option.getOrUndefined(flags.host),
        port: Option.getOrUndefined(flags.port),
        memory: flags.memory,
        adminToken: Option.getOrUndefined(flags.adminToken),
        adminPrincipals: flags.adminPrincipal,
        timeout: Option.getOrUndefined(flags.timeout),
        stdio: flags.stdio,
        strict: flags.strict
      })
    })
).pipe(
  Command.withDescription("A registry of A2A agents behind one front door, or (add, ls, rm) manage a running one"),
  Command.withSubcommands([addCommand, lsCommand, rmCommand]),
  Command.withExamples([
    { command: "effect-a2a gateway --admin-token T", description: "Serve the gateway on 127.0.0.1:8080" },
    {
      command: "effect-a2a gateway add http://localhost:9000 --admin-token T",
      description: "Register an agent (then at http://127.0.0.1:8080/agents/<name>)"
    },
    { command: "effect-a2a gateway ls --admin-token T", description: "List the agents" },
    {
      command: "effect-a2a gateway --stdio",
      description: "The registry in A2A_DATA_DIR as MCP tools on stdin/stdout (over HTTP: http://127.0.0.1:8080/mcp)"
    }
  ]),
  Command.provide(FetchHttpClient.layer)
)
