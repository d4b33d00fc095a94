/**
 * The example of docs/internal-api.md ("Validating a session from another Node service") is run as written,
 * against the platform over mutual TLS with the internal-client certificate: it finds the user of a live
 * session cookie (or bearer token), null for a revoked or made-up one, and is refused with another
 * workload's certificate that may not call GetSession.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../../testing/databases.js";
import { uniqueEmail } from "../../../testing/http.js";
import { usePlatform } from "../../../testing/use-platform.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const platform = usePlatform();

/** The doc's code block, written next to this test so its imports resolve as in a service of the repository. */
function exampleFile(): string {
  const doc = readFileSync(join(ROOT, "docs/internal-api.md"), "utf8");
  const after = doc.slice(doc.indexOf("Validating a session from another Node service"));
  const code = /```ts\n([\s\S]*?)```/.exec(after)?.[1];
  expect(code, "the example's code block").toBeDefined();
  const file = join(ROOT, "services/runtime/test", `.internal-api-example-${process.pid}.ts`);
  writeFileSync(file, code!);
  return file;
}
const file = exampleFile();
afterAll(() => rmSync(file, { force: true }));

type Example = { validateSession(cookieValue: string): Promise<{ id: string; email: string; createdAt: Date } | null> };
let loads = 0;
/** The example module, loaded with the certificate of `workload` (a fresh module each time). */
async function example(workload: string): Promise<Example> {
  const tls = platform.grpcTls(workload as Parameters<typeof platform.grpcTls>[0]);
  expect(tls.kind).toBe("mtls");
  process.env.AUTH_CLIENT_TLS_DIR = (tls as { dir: string }).dir;
  process.env.AUTH_SESSION_TARGET = platform.sessionAddress;
  return (await import(`${pathToFileURL(file).href}?load=${++loads}`)) as Example;
}

describe(`the internal API example of docs/internal-api.md (${backendLabel()})`, () => {
  it("validates a session cookie and a bearer token with the internal-client certificate", async () => {
    const client = platform.client();
    const email = uniqueEmail("internal");
    const signUp = await client.post("/sign-up/email", { name: "Ada", email, password: "password-123" });
    expect(signUp.status).toBe(200);
    const cookie = client.cookies.get("better-auth.session_token");
    expect(cookie).toBeTruthy();

    const { validateSession } = await example("internal-client");
    const user = await validateSession(cookie!);
    expect(user).toMatchObject({ id: signUp.body.user.id, email });
    expect(user!.createdAt).toBeInstanceOf(Date);
    expect(await validateSession(signUp.body.token)).toMatchObject({ id: signUp.body.user.id });

    expect(await validateSession("not-a-session.signature")).toBeNull();
    expect((await client.post("/sign-out", {})).status).toBe(200);
    expect(await validateSession(cookie!)).toBeNull();
  });

  it("is refused with the certificate of a workload that may not call GetSession", async () => {
    const { validateSession } = await example("notification");
    await expect(validateSession("anything")).rejects.toMatchObject({ code: 7 }); // PERMISSION_DENIED
  });
});
