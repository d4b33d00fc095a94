/**
 * A warm get-session, answered before the middleware chain from the gateway's session memory
 * (http/warm-session.ts), is the route's answer byte for byte: the same body and the same headers as the
 * same request answered by the route (a query sends it there), and a session signed out is not served.
 */
import { describe, expect, it, vi } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";

/** The headers of an answer, without those that differ from one answer to the next. */
const stable = (headers: Headers) => Object.fromEntries([...headers].filter(([name]) => !["date", "x-request-id", "keep-alive", "connection"].includes(name)));

describe(`a warm get-session (${backendLabel()})`, () => {
  const platform = usePlatform();

  it("answers as the route does, and stops at sign-out", async () => {
    const http = platform.client();
    const signedUp = await http.post("/sign-up/email", { name: "Warm", email: uniqueEmail("warm"), password: "password-123" });
    expect(signedUp.status).toBe(200);
    // The first read fills the memory; from then on the plain request is answered before the chain, from
    // the answer the memory serialised at the fill.
    expect((await http.get("/get-session")).body.user.id).toBe(signedUp.body.user.id);
    const memory = platform.gateway.sessionMemory!;
    const answered = vi.spyOn(memory, "answer");
    const warm = await http.get("/get-session");
    // The body as sent: JSON.stringify gives back the compact text the answer was.
    expect(answered).toHaveLastReturnedWith(JSON.stringify(warm.body));
    const routed = await http.get("/get-session?disableRefresh=false");
    answered.mockRestore();
    expect(warm.status).toBe(200);
    expect(JSON.stringify(warm.body)).toBe(JSON.stringify(routed.body));
    expect(stable(warm.headers)).toEqual(stable(routed.headers));
    expect(warm.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);

    expect((await http.post("/sign-out")).status).toBe(200);
    expect((await http.get("/get-session")).body).toBeNull();
  });
});
