import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Stream } from "effect"
import * as SseParser from "../../src/client/SseParser.ts"

const parseAll = (chunks: ReadonlyArray<string>) => {
  const parser = SseParser.makeParser()
  return chunks.flatMap((chunk) => Result.getOrThrow(parser.feed(chunk)))
}

/** Every way of cutting `text` in two and three pieces gives the same events as the whole text. */
const expectChunkingInvariant = (text: string) => {
  const whole = parseAll([text])
  for (let i = 0; i <= text.length; i++) {
    expect(parseAll([text.slice(0, i), text.slice(i)])).toEqual(whole)
    for (let j = i; j <= text.length; j += 3) {
      expect(parseAll([text.slice(0, i), text.slice(i, j), text.slice(j)])).toEqual(whole)
    }
  }
  expect(parseAll([...text])).toEqual(whole)
  return whole
}

describe("SSE parser", () => {
  it("parses data events separated by blank lines", () => {
    expect(parseAll(["data: {\"a\":1}\n\ndata: two\n\n"])).toEqual([
      { event: "message", data: "{\"a\":1}", id: undefined, retry: undefined },
      { event: "message", data: "two", id: undefined, retry: undefined }
    ])
  })

  it("joins multi-line data with LF and strips exactly one leading space", () => {
    expect(parseAll(["data: line1\ndata:line2\ndata:  indented\ndata\n\n"])).toEqual([
      { event: "message", data: "line1\nline2\n indented\n", id: undefined, retry: undefined }
    ])
  })

  it("accepts CRLF, CR and LF line endings, also mixed", () => {
    const expected = [
      { event: "message", data: "a\nb", id: undefined, retry: undefined },
      { event: "message", data: "c", id: undefined, retry: undefined }
    ]
    expect(parseAll(["data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n"])).toEqual(expected)
    expect(parseAll(["data: a\rdata: b\r\rdata: c\r\r"])).toEqual(expected)
    expect(parseAll(["data: a\r\ndata: b\n\rdata: c\n\r\n"])).toEqual(expected)
  })

  it("ignores comments (keep-alives) and unknown fields", () => {
    expect(parseAll([": keep-alive\n\n:\ndata: x\nfoo: bar\n: another\n\n"])).toEqual([
      { event: "message", data: "x", id: undefined, retry: undefined }
    ])
  })

  it("does not dispatch events without data", () => {
    expect(parseAll(["event: ping\n\nid: 7\n\n"])).toEqual([])
  })

  it("carries event type, last event id and retry", () => {
    expect(parseAll(["event: error\nid: 1\nretry: 1500\ndata: boom\n\ndata: next\n\nid\ndata: reset\n\n"])).toEqual([
      { event: "error", data: "boom", id: "1", retry: 1500 },
      { event: "message", data: "next", id: "1", retry: 1500 },
      { event: "message", data: "reset", id: "", retry: 1500 }
    ])
  })

  it("ignores an id containing NUL and a non-numeric retry", () => {
    expect(parseAll(["id: 5\nretry: 10\n\nid: a\u0000b\nretry: 1x\ndata: d\n\n"])).toEqual([
      { event: "message", data: "d", id: "5", retry: 10 }
    ])
  })

  it("strips a leading byte order mark", () => {
    expect(parseAll(["\uFEFFdata: x\n\n"])).toEqual([{ event: "message", data: "x", id: undefined, retry: undefined }])
  })

  it("discards an event the stream ends in the middle of", () => {
    expect(parseAll(["data: complete\n\ndata: incomplete\n"])).toEqual([
      { event: "message", data: "complete", id: undefined, retry: undefined }
    ])
  })

  it("gives the same events whatever the chunk boundaries (CRLF split included)", () => {
    const events = expectChunkingInvariant(
      ": hello\r\nevent: update\r\nid: 42\r\ndata: {\"x\":\r\ndata: 1}\r\n\r\ndata: é ☃\n\n:ka\r\rdata: z\r\r"
    )
    expect(events).toEqual([
      { event: "update", data: "{\"x\":\n1}", id: "42", retry: undefined },
      { event: "message", data: "é ☃", id: "42", retry: undefined },
      { event: "message", data: "z", id: "42", retry: undefined }
    ])
  })

  it.effect("decodes a byte stream, including a multi-byte character split across chunks", () =>
    Effect.gen(function*() {
      const bytes = new TextEncoder().encode("data: é☃\r\n\r\ndata: 2\n\n")
      const chunks = [bytes.slice(0, 7), bytes.slice(7, 9), bytes.slice(9, 13), bytes.slice(13)]
      const events = yield* Stream.fromIterable(chunks).pipe(SseParser.decode, Stream.runCollect)
      expect(events.map((e) => e.data)).toEqual(["é☃", "2"])
    }))

  it.effect("is pull-based: it reads no further than the events taken", () =>
    Effect.gen(function*() {
      let pulled = 0
      const source = Stream.fromIterable(["data: 1\n\n", "data: 2\n\n", "data: 3\n\n", "data: 4\n\n"]).pipe(
        Stream.rechunk(1),
        Stream.tap(() => Effect.sync(() => pulled++))
      )
      const events = yield* source.pipe(SseParser.events, Stream.take(2), Stream.runCollect)
      expect(events.map((e) => e.data)).toEqual(["1", "2"])
      expect(pulled).toBe(2)
    }))

  it.effect("fails instead of buffering without bound when one event outgrows the limit", () =>
    Effect.gen(function*() {
      const endless = Stream.make("data: ok\n\n", "data: ", "x".repeat(600), "y".repeat(600), "\n\n")
      const seen: Array<string> = []
      const error = yield* endless.pipe(
        (s) => SseParser.events(s, { maxEventSize: 1000 }),
        Stream.runForEach((e) => Effect.sync(() => seen.push(e.data))),
        Effect.flip
      )
      expect(seen).toEqual(["ok"])
      expect(error._tag).toBe("SseEventTooLarge")
      const fits = yield* Stream.runCollect(
        SseParser.events(Stream.make("data: ", "x".repeat(900), "\n\n"), { maxEventSize: 1000 })
      )
      expect(fits.length).toBe(1)
    }))
})
