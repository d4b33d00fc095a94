/** closeSteps: steps in order, a failing one logged without stopping the rest, the step under way named. */
import { describe, expect, it } from "vitest";
import { closeSteps } from "./close-steps.js";

describe("closeSteps", () => {
  it("runs every step in order, logs a failing one and still runs the next, and names the step under way", async () => {
    const ran: string[] = [];
    const errors: Array<[string, unknown]> = [];
    let release!: () => void;
    const steps = closeSteps(
      [
        { name: "server", close: () => new Promise<void>((resolve) => (release = resolve)).then(() => void ran.push("server")) },
        { name: "metrics", close: () => Promise.reject(new Error("metrics server would not close")) },
        { name: "store", close: () => void ran.push("store") },
      ],
      { error: (msg, fields) => void errors.push([msg, fields]) },
    );
    expect(steps.current()).toBeUndefined();
    const running = steps.run();
    expect(steps.current()).toBe("server");
    release();
    await running;
    expect(ran).toEqual(["server", "store"]);
    expect(errors).toEqual([["close failed", { closer: "metrics", error: new Error("metrics server would not close") }]]);
    expect(steps.current()).toBeUndefined();
  });
});
