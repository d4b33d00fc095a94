/**
 * Errors across services, on the whole platform in one process: an internal failure of a service reaches
 * the browser as a generic 500 with the request id, never its text; each service logs it under its own
 * name (identity and session share this process), with the same request id.
 */
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "@auth-platform/runtime/store";
import { UserEntity } from "../../services/identity/src/store/entities.js";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { type Platform, startPlatform } from "../../testing/platform.js";

let platform: Platform | undefined;
const logs: Array<Record<string, unknown>> = [];

afterEach(async () => {
  await platform?.stop();
  platform = undefined;
  logs.length = 0;
});

async function signUp(p: Platform) {
  return new TestClient(p.baseURL).post("/sign-up/email", { name: "Ada", email: uniqueEmail(), password: "password-123" });
}

/** Renames a service's table behind its back (SQLite and PostgreSQL alike): its next query fails unexpectedly. */
async function breakTable(url: string, table: string) {
  const store = await openStore({ url, entities: [UserEntity], migrations: [] });
  await store.em().getConnection().execute(`alter table "${table}" rename to "${table}_gone"`);
  await store.close();
}

const unexpected = (service: string) => logs.filter((entry) => entry.service === service && entry.msg === "unexpected error");

describe(`errors across services (${backendLabel()})`, () => {
  it("an internal error in identity reaches the browser as 500 with a request id, and is logged by identity under its own name", async () => {
    platform = await startPlatform({ logs: (entry) => logs.push(entry) });
    await breakTable(platform.env.IDENTITY_DATABASE_URL!, "user");

    const res = await signUp(platform);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: "INTERNAL_SERVER_ERROR", message: "Internal server error" });
    const requestId = res.headers.get("x-request-id");
    expect(requestId).toMatch(/\S/);
    const [entry, ...more] = unexpected("identity");
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ level: "error", method: "SignUpEmail", requestId, error: expect.stringMatching(/\S/) });
    // The cause is in identity's log, not on the wire.
    expect(JSON.stringify(res.body)).not.toContain(String(entry!.error).split("\n")[0]!.slice(0, 40));
    expect(unexpected("session")).toEqual([]);
  });

  it("a nested internal error (session, called by identity) is logged by both with the request id and answered as a generic 500", async () => {
    platform = await startPlatform({ logs: (entry) => logs.push(entry) });
    await breakTable(platform.env.SESSION_DATABASE_URL!, "session");

    const res = await signUp(platform);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: "INTERNAL_SERVER_ERROR", message: "Internal server error" });
    const requestId = res.headers.get("x-request-id");
    // The session service logs its own failure (the store's error) under its name, with the request id...
    expect(logs).toContainEqual(expect.objectContaining({ service: "session", level: "error", requestId, error: expect.stringContaining("session") }));
    // ...and identity logs the session's answer (a catalogue 500) as the cause of its own failure, not passing the code on.
    expect(unexpected("identity")).toEqual([expect.objectContaining({ method: "SignUpEmail", requestId, error: expect.stringContaining("Failed to create session") })]);
  });
});
