import { describe, expect, it } from "vitest";
import { CREDENTIAL_PROVIDER } from "../store/identity-store.js";
import { signInEmail } from "./sign-in.js";
import { signUpEmail, type SignUpInput } from "./sign-up.js";
import { T0, testRegistry } from "../../test/test-registry.js";
import { errorCode } from "../../../../testing/error-code.js";

const input = (overrides: Partial<SignUpInput> = {}): SignUpInput => ({
  name: "Ada",
  email: "ada@example.com",
  password: "password-123",
  extraFields: {},
  rememberMe: true,
  client: { ipAddress: "203.0.113.7" },
  ...overrides,
});

describe("sign-up", () => {
  it("creates the user with a password account, signs them in and mails a verification link", async () => {
    const deps = testRegistry();
    const { user, session } = await signUpEmail(deps, input({ email: "  Ada@Example.COM ", callbackUrl: "/welcome", language: "de" }));
    expect(user).toMatchObject({ name: "Ada", email: "ada@example.com", emailVerified: false, createdAt: new Date(T0) });
    expect(session).toMatchObject({ userId: user.id });
    expect(deps.sessions.of(user.id)).toHaveLength(1);
    expect(await deps.store.findUserByEmail("ada@example.com")).toEqual(user);
    expect((await deps.store.findAccount(user.id, CREDENTIAL_PROVIDER))!.password).not.toContain("password-123");
    expect(deps.mail.link("ada@example.com", "email-verification")).toMatch(/^https:\/\/auth\.example\.com\/api\/auth\/verify-email\?token=.+&callbackURL=%2Fwelcome$/);
    expect(deps.mail.to("ada@example.com", "email-verification")[0]!.language).toBe("de");
    // The password works for sign-in.
    expect((await signInEmail(deps, { email: "ada@example.com", password: "password-123", rememberMe: true, client: {} })).user.id).toBe(user.id);
  });

  it("refuses a taken email or username, whatever their case, and leaves the first user alone", async () => {
    const deps = testRegistry();
    const first = await signUpEmail(deps, input({ username: "Ada_L" }));
    expect(first.user).toMatchObject({ username: "ada_l", displayUsername: "Ada_L" });
    expect(await errorCode(signUpEmail(deps, input({ email: "ADA@example.com" })))).toBe("USER_ALREADY_EXISTS");
    expect(await errorCode(signUpEmail(deps, input({ email: "other@example.com", username: "ADA_L" })))).toBe("USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER");
    expect(await deps.store.findUserByEmail("other@example.com")).toBeNull();
    expect(deps.sessions.live).toHaveLength(1);
  });

  it("checks the email, the password length, the username and the extra fields before creating anything", async () => {
    const deps = testRegistry({ IDENTITY_USER_FIELDS: JSON.stringify({ phone: { type: "string", required: true }, plan: { type: "string", input: false } }) });
    expect(await errorCode(signUpEmail(deps, input({ email: "not-an-email", extraFields: { phone: "1" } })))).toBe("INVALID_EMAIL");
    expect(await errorCode(signUpEmail(deps, input({ password: "short", extraFields: { phone: "1" } })))).toBe("PASSWORD_TOO_SHORT");
    expect(await errorCode(signUpEmail(deps, input({ password: "x".repeat(129), extraFields: { phone: "1" } })))).toBe("PASSWORD_TOO_LONG");
    expect(await errorCode(signUpEmail(deps, input({ username: "a b", extraFields: { phone: "1" } })))).toBe("VALIDATION_ERROR");
    expect(await errorCode(signUpEmail(deps, input()))).toBe("VALIDATION_ERROR");
    expect(await deps.store.findUserByEmail("ada@example.com")).toBeNull();
    // A field that is not an input (server-only `plan`) is ignored, never stored.
    const { user } = await signUpEmail(deps, input({ extraFields: { phone: "+44 20", plan: "pro" } }));
    expect(user.extraFields).toEqual({ phone: "+44 20" });
  });

  it("without auto sign-in, or with verification required, creates the user but no session", async () => {
    const manual = testRegistry({ IDENTITY_AUTO_SIGN_IN: "false" });
    expect((await signUpEmail(manual, input())).session).toBeUndefined();
    expect(manual.sessions.live).toEqual([]);

    const required = testRegistry({ IDENTITY_REQUIRE_EMAIL_VERIFICATION: "true", IDENTITY_SEND_VERIFICATION_ON_SIGN_UP: "false" });
    const { user, session } = await signUpEmail(required, input());
    expect(session).toBeUndefined();
    expect(await required.store.findUserById(user.id)).not.toBeNull();
    // Required verification mails the link even when sending on sign-up is off.
    expect(required.mail.to("ada@example.com", "email-verification")).toHaveLength(1);
  });

  it("mails nothing when verification is off, and refuses everyone when email and password is disabled", async () => {
    const quiet = testRegistry({ IDENTITY_EMAIL_VERIFICATION_ENABLED: "false" });
    await signUpEmail(quiet, input());
    expect(quiet.mail.sent).toEqual([]);
    const disabled = testRegistry({ IDENTITY_EMAIL_PASSWORD_ENABLED: "false" });
    expect(await errorCode(signUpEmail(disabled, input()))).toBe("EMAIL_AND_PASSWORD_IS_NOT_ENABLED");
  });

  it("keeps an https: image, takes an empty one as none, refuses a script URL before creating anyone", async () => {
    const deps = testRegistry();
    expect((await signUpEmail(deps, input({ image: "https://img.example/a.png" }))).user.image).toBe("https://img.example/a.png");
    expect((await signUpEmail(deps, input({ email: "grace@example.com", image: "" }))).user.image).toBeNull();
    expect(await errorCode(signUpEmail(deps, input({ email: "eve@example.com", image: "javascript:alert(1)" })))).toBe("VALIDATION_ERROR");
    expect(await deps.store.findUserByEmail("eve@example.com")).toBeNull();
  });
});
