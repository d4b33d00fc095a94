import { describe, expect, it } from "vitest";
import { currentRequestContext, outsideAnyRequest, withRequestContext } from "./request-context.js";

describe("outsideAnyRequest", () => {
  it("runs work a request starts without the request's id or signal, so the request's end cancels none of it", async () => {
    const ended = new AbortController();
    const seen = await withRequestContext({ requestId: "r-1", signal: ended.signal }, async () => {
      const inside = currentRequestContext();
      const background = outsideAnyRequest(async () => {
        ended.abort(); // the request is answered while the work still runs
        await Promise.resolve();
        return currentRequestContext();
      });
      return { inside, background: await background, after: currentRequestContext() };
    });
    expect(seen.inside?.requestId).toBe("r-1");
    expect(seen.background).toBeUndefined();
    expect(seen.after?.requestId).toBe("r-1");
  });
});
