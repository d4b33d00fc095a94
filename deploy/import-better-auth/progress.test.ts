/** The import's progress on stderr: a bar redrawn in place on a terminal, a line every few seconds otherwise. */
import { afterEach, describe, expect, it } from "vitest";
import { testClock } from "../../testing/test-clock.js";
import { progressReporter } from "./progress.js";

/** A stream that says whether it is a terminal and keeps what is written to it. */
function stream(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (chunk: string) => written.push(chunk) > 0 } as unknown as NodeJS.WriteStream };
}

const clock = testClock();
afterEach(() => clock.restore());

describe("import progress", () => {
  it("on a terminal, redraws one bar in place and ends its line at the end", () => {
    const terminal = stream(true);
    const progress = progressReporter(terminal.stream);
    progress.update(0, 40, "users");
    progress.update(10, 40, "users");
    clock.advance(12_000);
    progress.update(40, 40, "sessions");
    progress.end();
    expect(terminal.written).toEqual([
      `\r[${"-".repeat(30)}] 0/40 rows (0 %), now users, 0 s\x1b[K`,
      `\r[${"#".repeat(8)}${"-".repeat(22)}] 10/40 rows (25 %), now users, 0 s\x1b[K`,
      `\r[${"#".repeat(30)}] 40/40 rows (100 %), now sessions, 12 s\x1b[K`,
      "\n",
    ]);
  });

  it("elsewhere, writes a line at most every few seconds, and the last one", () => {
    const log = stream(false);
    const progress = progressReporter(log.stream, 5_000);
    progress.update(1, 4, "users");
    progress.update(2, 4, "users");
    clock.advance(6_000);
    progress.update(3, 4, "accounts");
    progress.update(4, 4, "sessions");
    progress.end();
    expect(log.written).toEqual(["import: 1/4 rows (25 %), now users, 0 s\n", "import: 3/4 rows (75 %), now accounts, 6 s\n", "import: 4/4 rows (100 %), now sessions, 6 s\n"]);
  });
});
