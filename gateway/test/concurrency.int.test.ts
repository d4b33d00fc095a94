/**
 * Racing sign-ups: the unique indexes, not the early lookups, decide who wins, and every loser gets the
 * catalogue's 422 (never a 500), on whichever backend the suite runs. A burst this size can exceed identity's
 * bounded hashing queue on a busy 2-core machine: a request it refuses answers a fast 503, never a user.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { type JsonResponse, TestClient, uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";

const platform = usePlatform();

const client = () => new TestClient(platform.baseURL);
const passwordOf = (i: number) => `password-${String(i).padStart(3, "0")}`;

/** What identity's hashing queue answers when a request would not finish before its deadline. */
const AT_CAPACITY = { status: 503, body: { code: "SERVICE_UNAVAILABLE", message: "Service unavailable" } };

/** Index of the one 200 among the answers (fails unless there is exactly one). */
function theOneWinner(answers: JsonResponse[]): number {
  const statuses = answers.map((a) => a.status);
  expect(
    statuses.filter((s) => s === 200),
    `statuses: ${statuses.join(",")}`,
  ).toHaveLength(1);
  return statuses.indexOf(200);
}

describe(`concurrent sign-ups (${backendLabel()})`, () => {
  it("50 simultaneous sign-ups with one email make exactly one user; the other 49 get 422 USER_ALREADY_EXISTS", { timeout: 90_000 }, async () => {
    const email = uniqueEmail("race");
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => client().post("/sign-up/email", { name: `Racer ${i}`, email, password: passwordOf(i) })));
    const winner = theOneWinner(answers);
    const losers = answers.filter((_, i) => i !== winner);
    expect(losers).toHaveLength(49);
    const taken = { status: 422, body: { code: "USER_ALREADY_EXISTS", message: "User already exists" } };
    for (const res of losers) expect([taken, AT_CAPACITY]).toContainEqual({ status: res.status, body: res.body });
    const user = answers[winner]!.body.user;
    expect(user).toMatchObject({ email, name: `Racer ${winner}` });

    const signIn = await client().post("/sign-in/email", { email, password: passwordOf(winner) });
    expect(signIn.status).toBe(200);
    expect(signIn.body.user.id).toBe(user.id);
    // The stored password is the winner's, not a loser's.
    const loser = winner === 0 ? 1 : 0;
    expect(await client().post("/sign-in/email", { email, password: passwordOf(loser) })).toMatchObject({
      status: 401,
      body: { code: "INVALID_EMAIL_OR_PASSWORD" },
    });
  });

  it("20 simultaneous sign-ups with different emails and one username: one wins, 19 get the username 422", { timeout: 90_000 }, async () => {
    const username = `racer_${Date.now().toString(36)}`;
    const emails = Array.from({ length: 20 }, () => uniqueEmail("username-race"));
    const answers = await Promise.all(emails.map((email, i) => client().post("/sign-up/email", { name: `Racer ${i}`, email, password: passwordOf(i), username })));
    const winner = theOneWinner(answers);
    const losers = answers.filter((_, i) => i !== winner);
    expect(losers).toHaveLength(19);
    const taken = { status: 422, body: { code: "USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER", message: "username is already taken. please try another." } };
    for (const res of losers) expect([taken, AT_CAPACITY]).toContainEqual({ status: res.status, body: res.body });
    const user = answers[winner]!.body.user;
    expect(user).toMatchObject({ email: emails[winner], username });

    const signIn = await client().post("/sign-in/username", { username, password: passwordOf(winner) });
    expect(signIn.status).toBe(200);
    expect(signIn.body.user.id).toBe(user.id);
    // No loser left a user behind: their emails do not exist.
    for (const i of [0, 1, 2].filter((i) => i !== winner).slice(0, 2)) {
      expect((await client().post("/sign-in/email", { email: emails[i], password: passwordOf(i) })).status).toBe(401);
    }
  });
});
