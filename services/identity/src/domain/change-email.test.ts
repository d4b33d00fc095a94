import { describe, expect, it } from "vitest";
import { changeEmail } from "./change-email.js";
import { aSignedUpUser, testRegistry, tokenIn } from "../../test/test-registry.js";
import { verifyEmail } from "./verification.js";
import { errorCode } from "../../../../testing/error-code.js";

describe("change email", () => {
  it("an unverified user's address changes at once; the new address gets a verification link", async () => {
    const deps = testRegistry();
    const { user } = await aSignedUpUser(deps);
    await changeEmail(deps, { userId: user.id, newEmail: " New@Example.com", callbackUrl: "/settings" });
    expect(await deps.store.findUserById(user.id)).toMatchObject({ email: "new@example.com", emailVerified: false });
    expect(deps.sessions.forgotten).toEqual([user.id]);
    expect(deps.mail.link("new@example.com", "email-verification")).toContain("callbackURL=%2Fsettings");
  });

  it("a verified user confirms from the current address; following the link moves to the new one, to be verified in turn", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    await deps.store.updateUser(user.id, { emailVerified: true });
    await changeEmail(deps, { userId: user.id, newEmail: "new@example.com" });
    expect(await deps.store.findUserById(user.id)).toMatchObject({ email, emailVerified: true });
    const confirmation = deps.mail.to(email, "change-email").at(-1)!;
    expect(confirmation.variables).toMatchObject({ new_email: "new@example.com", email });

    // The approval counts only in a session of the user it was issued to.
    expect(await errorCode(verifyEmail(deps, { token: tokenIn(confirmation.variables.url!), client: {} }))).toBe("UNAUTHORIZED");
    expect(await errorCode(verifyEmail(deps, { token: tokenIn(confirmation.variables.url!), client: {}, sessionUserId: "someone-else" }))).toBe("UNAUTHORIZED");
    expect(await deps.store.findUserById(user.id)).toMatchObject({ email });
    const { user: moved } = await verifyEmail(deps, { token: tokenIn(confirmation.variables.url!), client: {}, sessionUserId: user.id, callbackUrl: "/verify-email?change=email" });
    expect(moved).toMatchObject({ id: user.id, email: "new@example.com", emailVerified: false });
    expect(await deps.store.findUserByEmail(email)).toBeNull();
    expect(deps.sessions.forgotten).toContain(user.id);
    // The new address's link lands where the approval did (as better-auth carries the callback on).
    expect(deps.mail.link("new@example.com", "change-email-new-address")).toContain(`callbackURL=${encodeURIComponent("/verify-email?change=email")}`);
    await verifyEmail(deps, { token: tokenIn(deps.mail.link("new@example.com", "change-email-new-address")), client: {} });
    expect(await deps.store.findUserById(user.id)).toMatchObject({ email: "new@example.com", emailVerified: true });
  });

  it("step 1 goes to the current address in the asking request's language, step 2 to the new one in the approving request's", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    await deps.store.updateUser(user.id, { emailVerified: true });
    await changeEmail(deps, { userId: user.id, newEmail: "new@example.com", language: "fr" });
    const approval = deps.mail.to(email, "change-email").at(-1)!;
    expect(approval.language).toBe("fr");
    await verifyEmail(deps, { token: tokenIn(approval.variables.url!), client: {}, sessionUserId: user.id, language: "de" });
    expect(deps.mail.to("new@example.com").map((m) => ({ template: m.template, language: m.language, email: m.variables.email }))).toEqual([
      { template: "change-email-new-address", language: "de", email: "new@example.com" },
    ]);
  });

  it("a confirmation link is refused if the new address was taken meanwhile", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    await deps.store.updateUser(user.id, { emailVerified: true });
    await changeEmail(deps, { userId: user.id, newEmail: "new@example.com" });
    await aSignedUpUser(deps, { email: "new@example.com" });
    expect(await errorCode(verifyEmail(deps, { token: tokenIn(deps.mail.link(email, "change-email")), client: {}, sessionUserId: user.id }))).toBe("COULDNT_UPDATE_YOUR_EMAIL");
    expect(await deps.store.findUserById(user.id)).toMatchObject({ email });
  });

  it("a confirmation link moves only the user it was issued to, not one who took the address since", async () => {
    const deps = testRegistry();
    const { email, user: a } = await aSignedUpUser(deps);
    await deps.store.updateUser(a.id, { emailVerified: true });
    await changeEmail(deps, { userId: a.id, newEmail: "new@example.com" });
    const approval = tokenIn(deps.mail.link(email, "change-email"));
    // A leaves the address by a second change it confirms; B signs up with it and opens A's first approval.
    await changeEmail(deps, { userId: a.id, newEmail: "other@example.com" });
    await verifyEmail(deps, { token: tokenIn(deps.mail.link(email, "change-email")), client: {}, sessionUserId: a.id });
    const { user: b } = await aSignedUpUser(deps, { email });
    expect(await errorCode(verifyEmail(deps, { token: approval, client: {}, sessionUserId: b.id }))).toBe("INVALID_TOKEN");
    expect(await errorCode(verifyEmail(deps, { token: approval, client: {}, sessionUserId: a.id }))).toBe("INVALID_TOKEN");
    expect(await deps.store.findUserById(b.id)).toMatchObject({ email, emailVerified: false });
    expect(await deps.store.findUserById(a.id)).toMatchObject({ email: "other@example.com" });
    expect(await deps.store.findUserByEmail("new@example.com")).toBeNull();
  });

  it("refuses the same address, a taken one, a malformed one, an unknown user, and everything when disabled", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    const { email: taken } = await aSignedUpUser(deps);
    expect(await errorCode(changeEmail(deps, { userId: user.id, newEmail: email.toUpperCase() }))).toBe("EMAIL_IS_THE_SAME");
    // A taken address answers like any failure to update, so it does not tell who has an account.
    expect(await errorCode(changeEmail(deps, { userId: user.id, newEmail: taken }))).toBe("COULDNT_UPDATE_YOUR_EMAIL");
    expect(await errorCode(changeEmail(deps, { userId: user.id, newEmail: "nope" }))).toBe("INVALID_EMAIL");
    expect(await errorCode(changeEmail(deps, { userId: "nobody", newEmail: "x@example.com" }))).toBe("USER_NOT_FOUND");
    expect(await errorCode(changeEmail(testRegistry({ IDENTITY_CHANGE_EMAIL_ENABLED: "false" }), { userId: user.id, newEmail: "x@example.com" }))).toBe("CHANGE_EMAIL_IS_DISABLED");
    expect(await deps.store.findUserById(user.id)).toMatchObject({ email });
  });
});
