/** Reading the client's results in tests: a stream as short labels, a SendMessage response as its task. */
import { Effect } from "effect"
import { textOf } from "../../src/client/Messages.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"

/** Each event as `task:<state>`, `status:<state>`, `artifact:<text>` or `message:<text>`. */
export const kinds = (events: ReadonlyArray<v1.StreamResponse>): ReadonlyArray<string> =>
  events.map((e) =>
    "task" in e
      ? `task:${e.task.status.state}`
      : "statusUpdate" in e
      ? `status:${e.statusUpdate.status.state}`
      : "artifactUpdate" in e
      ? `artifact:${textOf(e.artifactUpdate.artifact.parts)}`
      : `message:${textOf(e.message.parts)}`
  )

/** The task of a response; a Message there is a defect of the test's premise. */
export const taskOf = (response: v1.SendMessageResponse): Effect.Effect<v1.Task> =>
  "task" in response ? Effect.succeed(response.task) : Effect.die(`expected a task, got ${JSON.stringify(response)}`)
