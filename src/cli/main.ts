/**
 * The `effect-a2a` command. `serve` lives in ServeCommand; the client subcommands are parsed in ClientCommands and
 * load what they do when they run. Adding a subcommand is adding it to `subcommands`. NodeRuntime.runMain turns
 * SIGINT / SIGTERM into interruption, so a running server shuts down gracefully and the process exits with the
 * command's status.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Cause from "effect/Cause"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import {
  cancelCommand,
  cardCommand,
  getCommand,
  sendCommand,
  subscribeCommand,
  tasksCommand
} from "./ClientCommands.ts"
import { gatewayCommand } from "./GatewayCommand.ts"
import { mcpCommand } from "./McpCommand.ts"
import { serveCommand } from "./ServeCommand.ts"
import { workerCommand } from "./WorkerCommand.ts"

const subcommands = [
  serveCommand,
  workerCommand,
  cardCommand,
  sendCommand,
  getCommand,
  cancelCommand,
  subscribeCommand,
  tasksCommand,
  mcpCommand,
  gatewayCommand
] as const

/**
 * The `effect-a2a` command and its subcommands.
 *
 * @since 0.1.0
 * @category commands
 */
export const cli = Command.make("effect-a2a").pipe(
  Command.withDescription("A2A (Agent2Agent) protocol server and client, built on Effect"),
  Command.withSubcommands(subcommands)
)

// Stopping on SIGINT / SIGTERM is how a server ends: after a graceful shutdown that is a success (exit 0).
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

cli.pipe(
  Command.run({ version: "0.1.0" }),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain({ teardown })
)
