// The part of autocannon 8's programmatic API the harness uses (the package ships no types).
declare module "autocannon" {
  namespace autocannon {
    interface Histogram {
      readonly average: number
      readonly mean: number
      readonly stddev: number
      readonly min: number
      readonly max: number
      readonly total: number
      readonly p50: number
      readonly p90: number
      readonly p99: number
    }

    interface Result {
      readonly duration: number
      readonly errors: number
      readonly timeouts: number
      readonly mismatches: number
      readonly non2xx: number
      readonly latency: Histogram
      readonly requests: Histogram & { readonly sent: number }
      readonly throughput: Histogram
    }

    interface Request {
      readonly method?: "GET" | "POST"
      readonly path?: string
      readonly headers?: Record<string, string>
      readonly body?: string
    }

    interface RequestSpec extends Request {
      /** Called before each request is built; what it returns is sent. */
      readonly setupRequest?: (request: Request) => Request
    }

    interface Options {
      readonly url: string
      readonly method?: "GET" | "POST"
      readonly headers?: Record<string, string>
      readonly body?: string
      readonly requests?: ReadonlyArray<RequestSpec>
      readonly connections?: number
      /** Requests per second over all connections. */
      readonly overallRate?: number
      readonly pipelining?: number
      readonly duration?: number
      readonly timeout?: number
      readonly verifyBody?: (body: string) => boolean
    }

    interface Instance extends PromiseLike<Result> {
      stop(): void
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance
  export = autocannon
}
