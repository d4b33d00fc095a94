/**
 * The language of the mails end to end (docs/adr/0055-languages-of-the-app-and-the-mails.md): the gateway
 * picks it from the request's Accept-Language, the services pass it down, notification writes the mail in it,
 * and a real SMTP server receives it. An unknown language, or none, gets English.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { organizationOf, person } from "./organization-fixtures.js";

describe(`mail languages (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });

  /** Signs up with this Accept-Language; answers the client and the verification mail. */
  async function signUpIn(acceptLanguage: string | undefined) {
    const c = platform.client();
    const email = uniqueEmail("language");
    const headers = acceptLanguage === undefined ? undefined : { "accept-language": acceptLanguage };
    expect((await c.post("/sign-up/email", { name: "Ada", email, password: "password-123" }, headers)).status).toBe(200);
    return { c, email, mail: await platform.smtp.waitFor(email, (m) => m.text.includes("/verify-email")) };
  }

  it("a sign-up with Accept-Language: de gets its verification mail in German", async () => {
    const { email, mail } = await signUpIn("de-DE,de;q=0.9,en;q=0.8");
    expect(mail.subject).toBe("Bestätigen Sie Ihre E-Mail-Adresse für Auth Platform");
    expect(mail.text).toContain(`Bitte bestätigen Sie über den folgenden Link, dass ${email} Ihre E-Mail-Adresse für Auth Platform ist.`);
    expect(mail.text).toContain("Hallo Ada,");
    expect(mail.html).toContain('<html lang="de">');
    // The link is the same whatever the language.
    expect(linkIn(mail, "/verify-email")).toMatch(/\/verify-email\?token=/);
  });

  it("an unknown language, or none, gets English; q-values pick among the ones spoken", async () => {
    expect((await signUpIn("ja-JP,ko;q=0.9")).mail.subject).toBe("Verify your email address for Auth Platform");
    expect((await signUpIn(undefined)).mail.subject).toBe("Verify your email address for Auth Platform");
    expect((await signUpIn("it, es;q=0.4, fr;q=0.6")).mail.subject).toBe("Confirmez votre adresse e-mail pour Auth Platform");
  });

  it("a queued mail keeps the language of the request that asked for it: forget-password in Spanish", async () => {
    const { email } = await signUpIn("en");
    expect((await platform.client().post("/request-password-reset", { email, redirectTo: "/reset" }, { "accept-language": "es-MX" })).status).toBe(200);
    const mail = await platform.smtp.waitFor(email, (m) => m.text.includes("/reset-password/"));
    expect(mail.subject).toBe("Restablece tu contraseña de Auth Platform");
  });

  it("an email change says its step in each mail: step 1 in the asking request's language, step 2 in the approving one's", async () => {
    const { c, email, mail } = await signUpIn("en");
    await platform.follow(c, linkIn(mail, "/verify-email"));
    const newEmail = uniqueEmail("moved");
    expect((await c.post("/change-email", { newEmail }, { "accept-language": "fr" })).status).toBe(200);
    const step1 = await platform.smtp.waitFor(email, (m) => m.text.includes(newEmail));
    expect(step1.subject).toBe("Approuvez le changement de votre adresse e-mail Auth Platform (étape 1 sur 2)");
    const approval = linkIn(step1, "/verify-email");
    const approved = await c.get(approval.slice(c.baseURL.length), { "accept-language": "de" });
    expect(approved.status).toBe(302);
    const step2 = await platform.smtp.waitFor(newEmail, (m) => m.text.includes("/verify-email"));
    expect(step2.subject).toBe("Bestätigen Sie Ihre neue E-Mail-Adresse für Auth Platform (Schritt 2 von 2)");
    expect(step2.text).toContain(`Die E-Mail-Adresse Ihres Kontos bei Auth Platform lautet jetzt ${newEmail}.`);
  });

  it("an invitation is written in the inviter's language: the invitee made no request", async () => {
    const owner = await person(platform, "Ada");
    const organization = await organizationOf(owner);
    const invitee = uniqueEmail("invitee");
    const res = await owner.c.post("/organization/invite-member", { email: invitee, role: "member", organizationId: organization.id }, { "accept-language": "es" });
    expect(res.status).toBe(200);
    const mail = await platform.smtp.waitFor(invitee, (m) => m.text.includes("/accept-invitation/"));
    expect(mail.subject).toBe(`Ada te ha invitado a unirte a ${organization.name} en Auth Platform`);
  });
});
