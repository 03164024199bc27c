/** Just enough Server-Sent Events reading for the benchmarks: split a body into its events' data. */

/** The `data` of every event in a complete SSE body (multi-line data joined with "\n"). */
export const sseEvents = (body: string): Array<string> => {
  const events: Array<string> = []
  for (const block of body.split(/\r?\n\r?\n/)) {
    const data = block.split(/\r?\n/).flatMap((line) =>
      line.startsWith("data:") ? [line.slice(line.startsWith("data: ") ? 6 : 5)] : []
    )
    if (data.length > 0) events.push(data.join("\n"))
  }
  return events
}

/** Index just past the first complete event (blank line), or -1 while none has arrived. */
export const firstEventEnd = (text: string): number => {
  const lf = text.indexOf("\n\n")
  const crlf = text.indexOf("\r\n\r\n")
  if (lf === -1) return crlf === -1 ? -1 : crlf + 4
  return crlf === -1 || lf < crlf ? lf + 2 : crlf + 4
}
