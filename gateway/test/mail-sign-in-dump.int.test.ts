/**
 * A dump of identity's verification, email_code and mail_request tables is no way in: the mailed link's
 * token and the mailed code appear nowhere in it, and no string of it works as a link's token, while the
 * mailed ones do.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { dumpTable, stringsIn } from "../../testing/dumps.js";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { codeFor, MAIL_SIGN_IN_ENV, magicLinkFor, SIGN_IN_CODE } from "./mail-sign-in-helpers.js";

const platform = usePlatform({ smtp: true, env: MAIL_SIGN_IN_ENV });

describe(`a dump of the mail sign-in tables (${backendLabel()})`, () => {
  it("holds neither the link's token nor the code, and none of its strings opens the link's sign-in", async () => {
    const email = uniqueEmail("dumped");
    const c = platform.client();
    expect((await c.post("/sign-in/magic-link", { email })).status).toBe(200);
    expect((await c.post("/email-otp/send-verification-otp", { email, type: "sign-in" })).status).toBe(200);
    const token = new URL(await magicLinkFor(platform.smtp, email)).searchParams.get("token")!;
    const otp = await codeFor(platform.smtp, email, SIGN_IN_CODE);

    const url = platform.env.IDENTITY_DATABASE_URL!;
    const dump = stringsIn([await dumpTable(url, "verification"), await dumpTable(url, "email_code"), await dumpTable(url, "mail_request")]);
    expect([...dump].some((value) => value.includes(token))).toBe(false);
    // Whole values and their parts (a code stored as "482913:0" would be caught); six digits could occur
    // inside a random id by chance, so not substrings.
    expect(dump.has(otp)).toBe(false);
    for (const value of dump) {
      if (!/^[A-Za-z0-9]{1,64}$/.test(value)) continue;
      expect((await platform.client().get(`/magic-link/verify?token=${value}`)).body).toMatchObject({ code: "INVALID_TOKEN" });
    }
    // The mailed ones work.
    expect((await platform.client().get(`/magic-link/verify?token=${token}`)).status).toBe(200);
    expect((await platform.client().post("/sign-in/email-otp", { email, otp })).status).toBe(200);
  });
});
