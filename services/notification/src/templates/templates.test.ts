import { LANGUAGES } from "@auth-platform/runtime/language";
import { describe, expect, it } from "vitest";
import { catalogueProblems } from "../../../../testing/catalogues.js";
import { MAIL_CATALOGUES } from "./catalogues/index.js";
import { renderTemplate, TEMPLATES, TemplateError, type TemplateName, type Variables } from "./index.js";
import { escapeHtml, MAX_SHOWN_NAME, shownName } from "./letter.js";

const context = { appName: "Acme Auth", footerUrl: "https://app.example.com" };
const url = "https://auth.example.com/api/auth/verify-email?token=abc123&callbackURL=%2F";

/** Enough variables for every template. */
const full: Variables = {
  url,
  name: "Ada",
  email: "ada@example.com",
  new_email: "ada@new.example.com",
  organization_name: "Analytical Engines",
  inviter_name: "Charles",
  role: "admin",
  code: "482913",
  purpose: "sign-in",
};

describe.each(Object.keys(TEMPLATES) as TemplateName[])("template %s", (name) => {
  const mail = renderTemplate(name, full, context);

  it("names the app in the subject and both bodies, and signs with the footer link", () => {
    expect(mail.subject).toContain("Acme Auth");
    expect(mail.text).toContain("Acme Auth");
    expect(mail.html).toContain("Acme Auth");
    expect(mail.text).toContain("https://app.example.com");
    expect(mail.html).toContain('href="https://app.example.com"');
  });

  it("carries the link in text, HTML (escaped) and the links list", () => {
    expect(mail.text).toContain(url);
    expect(mail.html).toContain(`href="${url.replace(/&/g, "&amp;")}"`);
    expect(mail.links).toEqual([url]);
  });

  it("greets by name", () => {
    expect(mail.text).toContain("Hi Ada,");
  });

  it("refuses to render without its required variables, naming the first one", () => {
    const required = TEMPLATES[name].required;
    expect(() => renderTemplate(name, {}, context)).toThrow(new TemplateError(`variables.${required[0]} is required for ${name}`));
  });
});

describe("languages", () => {
  it.each(LANGUAGES)("the %s catalogue has every message of the English one, none empty, with the same placeholders", (language) => {
    expect(catalogueProblems(MAIL_CATALOGUES.en, MAIL_CATALOGUES[language])).toEqual([]);
  });

  describe.each(LANGUAGES.flatMap((language) => (Object.keys(TEMPLATES) as TemplateName[]).map((name) => [language, name] as const)))("%s %s", (language, name) => {
    const mail = renderTemplate(name, full, { ...context, language });
    const english = renderTemplate(name, full, context);
    // The code mail's words depend on its purpose.
    const text = name === "email-otp" ? MAIL_CATALOGUES[language][name]["sign-in"] : MAIL_CATALOGUES[language][name];

    it("is written in its language: subject, heading, action, and the page's lang", () => {
      const heading = mail.text.split("\n")[0]!;
      expect(mail.html).toContain(`<html lang="${language}">`);
      expect(mail.html).toContain(`${escapeHtml(heading)}</h1>`);
      expect(mail.text).toContain(`${text.action}: ${url}`);
      expect(mail.html).toContain(escapeHtml(MAIL_CATALOGUES[language].letter.pasteLink));
      if (language !== "en") {
        expect(mail.subject).not.toBe(english.subject);
        expect(heading).not.toBe(english.text.split("\n")[0]);
      }
    });

    it("fills every placeholder and keeps the link, the app's name and the greeting's name", () => {
      expect(`${mail.subject}\n${mail.text}`).not.toMatch(/\{\w+\}/);
      expect(mail.subject).toContain("Acme Auth");
      expect(mail.text).toContain("Acme Auth");
      expect(mail.text).toContain("Ada");
      expect(mail.links).toEqual([url]);
    });
  });

  it("writes in English without a language", () => {
    expect(renderTemplate("password-reset", full, context)).toEqual(renderTemplate("password-reset", full, { ...context, language: "en" }));
  });

  it("says which step of an email change each mail is", () => {
    const german = { ...context, language: "de" as const };
    expect(renderTemplate("change-email", full, context).subject).toBe("Approve the change of your Acme Auth email address (step 1 of 2)");
    expect(renderTemplate("change-email-new-address", full, context).subject).toBe("Confirm your new email address for Acme Auth (step 2 of 2)");
    expect(renderTemplate("change-email", full, german).text).toContain("Schritt 1 von 2: Genehmigen Sie die Änderung Ihrer E-Mail-Adresse");
    expect(renderTemplate("change-email-new-address", full, german).text).toContain("Schritt 2 von 2: Bestätigen Sie Ihre neue E-Mail-Adresse");
  });
});

describe("escaping and safety", () => {
  const hostile: Variables = { ...full, name: `<script>alert("x")</script>`, organization_name: `Evil & "Co" <b>`, inviter_name: "Mallory\r\nBcc: victim@example.com" };

  it("HTML-escapes every variable and leaves text as typed", () => {
    const mail = renderTemplate("organization-invitation", hostile, context);
    expect(mail.html).not.toContain("<script>");
    expect(mail.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(mail.html).toContain("Evil &amp; &quot;Co&quot; &lt;b&gt;");
    expect(mail.text).toContain(`Evil & "Co" <b>`);
  });

  it("keeps line breaks out of the subject", () => {
    const mail = renderTemplate("organization-invitation", hostile, context);
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.subject).toBe(`Mallory Bcc: victim@example[.]com invited you to join Evil & "Co" <b> on Acme Auth`);
  });

  it("accepts only http(s) links", () => {
    for (const bad of ["javascript:alert(1)", "data:text/html,hi", "not a url"]) {
      expect(() => renderTemplate("password-reset", { url: bad }, context)).toThrow("variables.url must be an http(s) URL");
    }
  });

  it("refuses oversized variables", () => {
    expect(() => renderTemplate("password-reset", { url, name: "x".repeat(2_001) }, context)).toThrow("variables.name is too long");
  });
});

describe("names others typed (shownName)", () => {
  it.each([
    ["a URL", "Visit https://evil.example/login now", "Visit evil[.]example/login now"],
    ["a bare host", "evil.example", "evil[.]example"],
    ["a www host", "www.evil.co.uk", "www[.]evil[.]co[.]uk"],
    ["an address", "help@evil.example", "help@evil[.]example"],
    ["an ideographic dot", "evil\u3002example", "evil[.]example"],
    ["an IPv4 address", "see 10.0.0.1", "see 10[.]0[.]0[.]1"],
    ["other schemes", "ftp://files.example and HTTP://x.example", "files[.]example and x[.]example"],
    ["control and direction characters", "Ada\u202e\u200b\r\nLovelace", "Ada Lovelace"],
    ["initials and numbers", "J.R.R. Tolkien Club 3.14", "J.R.R. Tolkien Club 3.14"],
  ])("neutralises %s", (_kind, value, shown) => {
    expect(shownName(value)).toBe(shown);
  });

  it(`cuts a name past ${MAX_SHOWN_NAME} characters with an ellipsis, whole characters only`, () => {
    expect(shownName("a".repeat(MAX_SHOWN_NAME))).toBe("a".repeat(MAX_SHOWN_NAME));
    expect(shownName("a".repeat(MAX_SHOWN_NAME + 1))).toBe(`${"a".repeat(MAX_SHOWN_NAME)}…`);
    expect(Array.from(shownName("😀".repeat(100)))).toHaveLength(MAX_SHOWN_NAME + 1);
  });

  it("the invitation shows its names through it and says who sent the mail", () => {
    const mail = renderTemplate("organization-invitation", { url, organization_name: `Pay at https://evil.example ${"y".repeat(100)}`, inviter_name: "www.evil.example" }, context);
    expect(mail.subject).toBe(`www[.]evil[.]example invited you to join Pay at evil[.]example ${"y".repeat(MAX_SHOWN_NAME - "Pay at evil[.]example ".length)}… on Acme Auth`);
    expect(mail.text).not.toContain("evil.example");
    expect(mail.text).toContain("This email was sent by Acme Auth");
    expect(renderTemplate("organization-invitation", { url, organization_name: "https://" }, context).subject).toBe("You are invited to join (no name) on Acme Auth");
  });
});

describe("per template", () => {
  it("shows the sign-in code in the bodies but not in the subject, and needs no link", () => {
    const mail = renderTemplate("sign-in-code", { code: "482913" }, { appName: "Acme Auth" });
    expect(mail.subject).toBe("Your sign-in code for Acme Auth");
    expect(mail.text).toContain("482913");
    expect(mail.html).toContain("482913");
    expect(mail.links).toEqual([]);
  });

  it("words the mailed code by its purpose, keeps it out of the subject, and refuses an unknown purpose", () => {
    const reset = renderTemplate("email-otp", { code: "482913", purpose: "forget-password" }, { appName: "Acme Auth" });
    expect(reset.subject).toBe("Your password reset code for Acme Auth");
    expect(reset.text).toContain("482913");
    expect(reset.links).toEqual([]);
    expect(renderTemplate("email-otp", { code: "482913", purpose: "email-verification" }, { appName: "Acme Auth" }).subject).toBe("Your verification code for Acme Auth");
    expect(() => renderTemplate("email-otp", { code: "482913", purpose: "change-email" }, { appName: "Acme Auth" })).toThrow(TemplateError);
  });

  it("names the new address in the change-email confirmation", () => {
    expect(renderTemplate("change-email", full, context).text).toContain("to ada@new.example.com");
  });

  it("names the inviter, organization and role in the invitation", () => {
    const mail = renderTemplate("organization-invitation", full, context);
    expect(mail.subject).toBe("Charles invited you to join Analytical Engines on Acme Auth");
    expect(mail.text).toContain("Charles invited you to join the organization Analytical Engines on Acme Auth as admin.");
  });

  it("works without a footer URL", () => {
    const mail = renderTemplate("password-reset", { url }, { appName: "Acme Auth" });
    expect(mail.text.trimEnd().endsWith("-- \nAcme Auth")).toBe(true);
    expect(mail.text).toContain("Hi,");
  });
});
