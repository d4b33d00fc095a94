/** The progress line on stderr: a bar redrawn in place on a terminal, otherwise a line every few seconds. */

export function progressReporter(stream: NodeJS.WriteStream = process.stderr, everyMs = 5_000): { update(done: number, total: number, kind: string): void; end(): void } {
  let last = 0;
  let drawn = false;
  const started = Date.now();
  const describe = (done: number, total: number, kind: string) => {
    const percent = total ? Math.floor((done / total) * 100) : 100;
    const seconds = Math.round((Date.now() - started) / 1000);
    return { percent, text: `${done}/${total} rows (${percent} %), now ${kind}, ${seconds} s` };
  };
  return {
    update(done, total, kind) {
      const { percent, text } = describe(done, total, kind);
      if (stream.isTTY) {
        const width = 30;
        const filled = Math.round((percent / 100) * width);
        stream.write(`\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${text}\x1b[K`);
        drawn = true;
        return;
      }
      const now = Date.now();
      if (now - last < everyMs && done < total) return;
      last = now;
      stream.write(`import: ${text}\n`);
    },
    end() {
      if (drawn) stream.write("\n");
    },
  };
}
