import { describe, expect, it } from "vitest";
import { renderTemplate, TEMPLATES, TemplateError, type TemplateName, type Variables } from "./index.js";

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
    expect(mail.subject).toBe(`Mallory Bcc: victim@example.com invited you to join Evil & "Co" <b> on Acme Auth`);
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

describe("per template", () => {
  it("shows the sign-in code in the bodies but not in the subject, and needs no link", () => {
    const mail = renderTemplate("sign-in-code", { code: "482913" }, { appName: "Acme Auth" });
    expect(mail.subject).toBe("Your sign-in code for Acme Auth");
    expect(mail.text).toContain("482913");
    expect(mail.html).toContain("482913");
    expect(mail.links).toEqual([]);
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
