/**
 * The trivial agent every benchmarked server runs, described once so that each server does
 * the same work. The first word of the user's text selects the behaviour.
 */

export type Behaviour = "echo" | "task" | "stream" | "wait" | "hold"

/** echo: reply with a direct Message carrying the user's text. */
export const ECHO = "echo"
/** task: a Task (submitted) -> one artifact -> completed. */
export const TASK = "task"
/** stream: a Task (submitted) -> STREAM_CHUNKS artifact chunks -> completed. */
export const STREAM = "stream"
/** wait: a Task (submitted) -> input-required; the task then stays open for subscribers. */
export const WAIT = "wait"
/** hold: a Task (submitted) -> working, then nothing until the task is canceled (an idle SendStreamingMessage). */
export const HOLD = "hold"

export const STREAM_CHUNKS = 10

/**
 * llm: an LLM agent (effect-a2a/ai's LlmAgent) over a scripted model that streams LLM_DELTAS small text deltas:
 * a Task (submitted) -> LLM_DELTAS artifact chunks -> completed. effect-a2a only (bench/servers/oursLlm.ts).
 */
export const LLM = "llm"
/** deltas: the same events from a hand-written AgentExecutor, to set the bridge's cost beside. */
export const DELTAS = "deltas"
export const LLM_DELTAS = 100
/** The text of one delta. */
export const deltaText = (index: number): string => `t${index} `

/** Events a server emits for one `stream` request: the task, the chunks, the final status. */
export const STREAM_EVENTS = 1 + STREAM_CHUNKS + 1

export const ARTIFACT_ID = "result"

export const behaviourOf = (text: string): Behaviour => {
  const space = text.indexOf(" ")
  const word = space === -1 ? text : text.slice(0, space)
  switch (word) {
    case TASK:
    case STREAM:
    case WAIT:
    case HOLD:
      return word
    default:
      return ECHO
  }
}

export const chunkText = (index: number): string => `chunk ${index}`

/** Paths below the server's origin; the harness discovers them from the card anyway. */
export const JSONRPC_PATH = "/a2a/jsonrpc"
export const REST_PATH = "/a2a/rest"
export const AGENT_CARD_PATH = "/.well-known/agent-card.json"

/** The agent card in A2A 1.0 JSON form, served by every server for the same origin. */
export const agentCardJson = (origin: string, grpcTarget?: string) => ({
  name: "bench-agent",
  description: "Trivial agent for the effect-a2a benchmarks: echo, task, stream, wait, hold.",
  supportedInterfaces: [
    { url: `${origin}${JSONRPC_PATH}`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    { url: `${origin}${REST_PATH}`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    ...(grpcTarget === undefined ? [] : [{ url: grpcTarget, protocolBinding: "GRPC", protocolVersion: "1.0" }])
  ],
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [
    {
      id: "echo",
      name: "Echo",
      description: "Echoes the text back, as a message or through a task.",
      tags: ["bench"]
    }
  ]
})

/** How a server process announces itself to the harness: one stdout line. */
export const READY_PREFIX = "BENCH_READY "

export interface ReadyLine {
  readonly origin: string
}

export const readyLine = (ready: ReadyLine): string => `${READY_PREFIX}${JSON.stringify(ready)}\n`

/** Set to a file path, a server process profiles its CPU into it (see servers/lifecycle.ts). */
export const PROFILE_ENV = "BENCH_CPU_PROFILE"
/** Set to a file path, a server process samples its allocations into it (see servers/lifecycle.ts). */
export const ALLOCATION_PROFILE_ENV = "BENCH_ALLOCATION_PROFILE"
/** "false": our servers run without IdleMemoryRelease (see ServerProcess.StartOptions.releaseMemory). */
export const RELEASE_MEMORY_ENV = "BENCH_RELEASE_MEMORY"
/** The signal that starts the profiler in a server process. */
export const PROFILE_START_SIGNAL = "SIGUSR2"

/** Asks a server process (started with --expose-gc) for a full garbage collection; ignored by default. */
export const GC_SIGNAL = "SIGWINCH"
