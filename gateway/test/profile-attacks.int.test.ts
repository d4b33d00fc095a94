/**
 * Attacks on a user's own profile and addresses: racing for one username or one address (the unique indexes
 * decide, every loser gets the catalogue's answer for its route), odd values in update-user, username
 * sign-in enumeration and variants, and change-email edge cases.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { type JsonResponse, uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { accountHelpers } from "./accounts.js";

const platform = usePlatform({ smtp: true });
const { client, follow, signUp, smtp } = accountHelpers(platform);

const EMAIL_TAKEN = { status: 400, body: { code: "COULDNT_UPDATE_YOUR_EMAIL", message: "Couldn't update your email" } };
const USERNAME_TAKEN = { status: 422, body: { code: "USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER", message: "username is already taken. please try another." } };
const answerOf = (res: JsonResponse) => ({ status: res.status, body: res.body });

/** `count` users signed up one after another (a burst could meet identity's bounded hashing queue). */
async function usersSignedUp(count: number, make: () => ReturnType<typeof signUp> = signUp) {
  const users = [];
  for (let i = 0; i < count; i++) users.push(await make());
  return users;
}

/** Signs a user up and verifies the address (the client holds the session). */
async function verifiedUser() {
  const user = await signUp();
  await follow(user.c, linkIn(await smtp.waitFor(user.email, (m) => m.text.includes("/verify-email")), "/verify-email"));
  return user;
}

describe(`profile races (${backendLabel()})`, () => {
  it("unverified users changing to one free address at once: one wins, the others get COULDNT_UPDATE_YOUR_EMAIL", { timeout: 60_000 }, async () => {
    const users = await usersSignedUp(8);
    const target = uniqueEmail("contested");
    const answers = await Promise.all(users.map(({ c }) => c.post("/change-email", { newEmail: target })));
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s === 200),
      statuses.join(","),
    ).toHaveLength(1);
    for (const res of answers.filter((a) => a.status !== 200)) expect(answerOf(res)).toEqual(EMAIL_TAKEN);
    const emails = await Promise.all(users.map(async ({ c }) => (await c.get("/get-session")).body.user.email));
    expect(emails.filter((e) => e === target)).toHaveLength(1);
  });

  it("a change-email racing a sign-up for the same address: one owner, each loser gets its route's answer", { timeout: 60_000 }, async () => {
    for (let round = 0; round < 4; round++) {
      const users = await usersSignedUp(4);
      const target = uniqueEmail("contested-signup");
      const [signUpAnswer, ...changes] = await Promise.all([
        client().post("/sign-up/email", { name: "Late", email: target, password: "password-123" }),
        ...users.map(({ c }) => c.post("/change-email", { newEmail: target })),
      ]);
      const winners = [signUpAnswer!, ...changes].filter((a) => a.status === 200);
      expect(winners).toHaveLength(1);
      if (signUpAnswer!.status !== 200) expect(answerOf(signUpAnswer!)).toEqual({ status: 422, body: { code: "USER_ALREADY_EXISTS", message: "User already exists" } });
      for (const res of changes.filter((a) => a.status !== 200)) expect(answerOf(res)).toEqual(EMAIL_TAKEN);
    }
  });

  it("verified users confirming changes to one address at once: one moves, the others get COULDNT_UPDATE_YOUR_EMAIL", { timeout: 60_000 }, async () => {
    const users = await usersSignedUp(6, verifiedUser);
    const target = uniqueEmail("contested-link");
    for (const { c } of users) expect((await c.post("/change-email", { newEmail: target })).status).toBe(200);
    const links = await Promise.all(users.map(async ({ email }) => linkIn(await smtp.waitFor(email, (m) => m.text.includes(target)), "/verify-email")));
    const answers = await Promise.all(users.map(({ c }, i) => follow(c, links[i]!)));
    const moved = await Promise.all(users.map(async ({ c }) => (await c.get("/get-session")).body.user.email));
    expect(moved.filter((e) => e === target)).toHaveLength(1);
    for (const [i, res] of answers.entries()) {
      if (moved[i] !== target) expect(answerOf(res)).toEqual(EMAIL_TAKEN);
      else expect(res.status).toBeLessThan(400);
    }
  });

  it("users taking one username through update-user at once: one wins, the others get the username 422", { timeout: 60_000 }, async () => {
    const users = await usersSignedUp(8);
    const username = `race_${Date.now().toString(36)}`;
    const answers = await Promise.all(users.map(({ c }, i) => c.post("/update-user", { username: i % 2 ? username.toUpperCase() : username })));
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s === 200),
      statuses.join(","),
    ).toHaveLength(1);
    for (const res of answers.filter((a) => a.status !== 200)) expect(answerOf(res)).toEqual(USERNAME_TAKEN);
  });
});

describe(`profile values (${backendLabel()})`, () => {
  it("usernames: length limits, unicode look-alikes refused before lower-casing, availability agrees", async () => {
    const { c } = await signUp();
    const base = `u${Date.now().toString(36)}`;
    for (const bad of ["ab", "a".repeat(31), `\u212Aate_${base}`, `ádám_${base}`, "a b c", "x@example.com", "<script>"]) {
      expect((await c.post("/update-user", { username: bad })).status, bad).toBe(400);
      expect((await client().post("/is-username-available", { username: bad })).status, bad).toBe(400);
    }
    const thirty = (base + "_".repeat(30)).slice(0, 30);
    expect((await c.post("/update-user", { username: thirty.toUpperCase() })).status).toBe(200);
    expect((await c.get("/get-session")).body.user).toMatchObject({ username: thirty.toLowerCase(), displayUsername: thirty.toUpperCase() });
    expect((await client().post("/is-username-available", { username: thirty })).body).toEqual({ available: false });
  });

  it("names, images and extra fields of the wrong type or null are refused with 400, never a 500", async () => {
    const { c } = await signUp();
    for (const body of [{ name: "   " }, { name: null }, { name: 12 }, { image: 12 }, { image: "x".repeat(4096) }, { username: null }, { username: 12 }, { displayUsername: 12 }]) {
      const res = await c.post("/update-user", body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    expect((await c.post("/update-user", { email: uniqueEmail() })).body).toMatchObject({ code: "EMAIL_CAN_NOT_BE_UPDATED" });
  });

  it("admin and verification fields sent to update-user are ignored", async () => {
    const { c } = await signUp();
    const before = (await c.get("/get-session")).body.user;
    const res = await c.post("/update-user", { name: "Renamed", role: "admin", emailVerified: true, banned: true, twoFactorEnabled: true, id: "someone-else" });
    expect(res.status).toBe(200);
    const after = (await c.get("/get-session")).body.user;
    expect(after).toMatchObject({ id: before.id, name: "Renamed", role: before.role, emailVerified: false, banned: before.banned, twoFactorEnabled: before.twoFactorEnabled });
  });
});

describe(`username sign-in (${backendLabel()})`, () => {
  it("unknown username and wrong password answer alike; case and surrounding spaces still find the user", async () => {
    const { c, password } = await signUp();
    const username = `signin_${Date.now().toString(36)}`;
    expect((await c.post("/update-user", { username })).status).toBe(200);
    const unknown = await client().post("/sign-in/username", { username: `nobody_${Date.now().toString(36)}`, password });
    const wrong = await client().post("/sign-in/username", { username, password: "wrong-password" });
    expect(answerOf(unknown)).toEqual(answerOf(wrong));
    expect(unknown.status).toBe(401);
    for (const variant of [username.toUpperCase(), `  ${username} `]) {
      expect((await client().post("/sign-in/username", { username: variant, password })).status, variant).toBe(200);
    }
  });
});

describe(`change email edge cases (${backendLabel()})`, () => {
  it("a confirmation link used after the user changed again moves nothing", async () => {
    const { c, email } = await verifiedUser();
    const first = uniqueEmail("first");
    const second = uniqueEmail("second");
    expect((await c.post("/change-email", { newEmail: first })).status).toBe(200);
    expect((await c.post("/change-email", { newEmail: second })).status).toBe(200);
    const firstLink = linkIn(await smtp.waitFor(email, (m) => m.text.includes(first)), "/verify-email");
    const secondLink = linkIn(await smtp.waitFor(email, (m) => m.text.includes(second)), "/verify-email");
    expect((await follow(c, secondLink)).status).toBeLessThan(400);
    // The first link names the address the user has left: it is a bad link now.
    const stale = await follow(c, firstLink);
    expect({ status: stale.status, error: new URL(stale.headers.get("location") ?? "/", "http://x").searchParams.get("error") }).toEqual({ status: 302, error: "invalid_token" });
    expect((await c.get("/get-session")).body.user.email).toBe(second);
  });
});
