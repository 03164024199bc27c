/**
 * `effect-a2a worker`: a node that runs agents and takes no requests (no A2A port). It joins the cluster engine
 * of the nodes sharing A2A_DATABASE_URL (see SqlStore.ClusterOptions) and runs the turns the engine gives it,
 * at most A2A_MAX_EXECUTIONS at once; the `serve` nodes take the requests. Stopping it (SIGINT / SIGTERM) lets the
 * turns it runs end (10 s at most) and hands its other tasks to the other runners; killed, they take its turns over
 * after A2A_FAILOVER.
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as NodeA2AServer from "../node/NodeA2AServer.ts"
import * as WebhookPush from "../node/push/WebhookPush.ts"
import * as CardSigner from "../server/CardSigner.ts"
import * as ShutdownDeadline from "../server/ShutdownDeadline.ts"
import * as DurableServer from "../sql/DurableServer.ts"
import { chooseAgent } from "./ServeCommand.ts"
import * as ServeFailure from "./ServeFailure.ts"

const run = (flags: { readonly agent: Option.Option<string> }) =>
  Effect.gen(function*() {
    const agent = yield* chooseAgent({
      host: Option.none(),
      port: Option.none(),
      prefix: Option.none(),
      publicUrl: Option.none(),
      memory: false,
      agent: flags.agent
    })
    const core = DurableServer.layerConfig({
      card: agent.card,
      executor: agent.executor,
      // the worker runs the turns, so it is the node that delivers their webhooks
      push: WebhookPush.layerConfig,
      execute: true
    }).pipe(
      Layer.provide(CardSigner.layerConfig)
    )
    const context = yield* Layer.build(core)
    // A stop lets the turns running here end for as long as `serve` lets its requests (its default
    // shutdownTimeout), then cuts them short: the other nodes run them again or fail them as lost.
    const deadline = Context.get(context, ShutdownDeadline.ShutdownDeadline)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() =>
        void setTimeout(
          () => Deferred.doneUnsafe(deadline, Exit.void),
          Duration.toMillis(NodeA2AServer.DEFAULT_SHUTDOWN_TIMEOUT)
        ).unref()
      )
    )
    yield* Console.log("effect-a2a worker: running the turns of the nodes on A2A_DATABASE_URL")
    return yield* Effect.never
  }).pipe(
    Effect.scoped,
    Effect.asVoid,
    // A worker listens on no A2A address: start-up failures name the runner's.
    Effect.mapError(ServeFailure.toUserError({
      host: process.env["A2A_RUNNER_HOST"] ?? "127.0.0.1",
      port: process.env["A2A_RUNNER_PORT"] ?? 0
    }))
  )

/**
 * `effect-a2a worker`: runs agents for the `serve` nodes sharing a database, taking turns from the cluster engine.
 *
 * @since 0.1.0
 * @category commands
 */
export const workerCommand = Command.make(
  "worker",
  {
    agent: Flag.String("agent").pipe(
      Flag.withDescription("The agent module to run (default: the demo agent), as for `serve --agent`"),
      Flag.optional
    )
  },
  run
).pipe(
  Command.withDescription(
    "Run agents for the `serve` nodes sharing A2A_DATABASE_URL, with no A2A port: turns come from the cluster engine"
  ),
  Command.withExamples([
    {
      command: "A2A_DATABASE_URL=postgres://a2a@db/a2a effect-a2a worker --agent ./my-agent.ts",
      description: "A worker for the nodes on that database (its runner on 127.0.0.1, a free port)"
    },
    {
      command: "A2A_DATABASE_URL=postgres://a2a@db/a2a A2A_RUNNER_HOST=0.0.0.0 A2A_RUNNER_ADVERTISE_HOST=worker-1 " +
        "A2A_RUNNER_PORT=34431 effect-a2a worker --agent ./my-agent.ts",
      description: "In a container: its runner on every interface, reached by the others at worker-1:34431"
    }
  ])
)
