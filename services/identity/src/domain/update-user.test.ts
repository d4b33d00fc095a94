import { describe, expect, it } from "vitest";
import { aSignedUpUser, testRegistry } from "../../test/test-registry.js";
import { updateUser } from "./update-user.js";
import { errorCode } from "../../../../testing/error-code.js";

const FIELDS = JSON.stringify({ phone: { type: "string" }, age: { type: "number" }, plan: { type: "string", input: false } });

describe("update user", () => {
  it("changes the name, image and username, keeps what is not named, and drops cached copies of the user", async () => {
    const deps = testRegistry();
    const { user } = await aSignedUpUser(deps);
    deps.advance(60_000);
    const updated = await updateUser(deps, { userId: user.id, fields: { name: "Ada King", image: "https://example.com/a.png", username: "Ada.King" } });
    expect(updated).toMatchObject({ name: "Ada King", image: "https://example.com/a.png", username: "ada.king", displayUsername: "Ada.King", email: user.email });
    expect(updated.updatedAt).toEqual(deps.now());
    expect(await deps.store.findUserById(user.id)).toEqual(updated);
    expect(deps.sessions.forgotten).toEqual([user.id]);
    expect(await updateUser(deps, { userId: user.id, fields: { image: null } })).toMatchObject({ image: null, name: "Ada King" });
  });

  it("merges configured extra fields with the stored ones, ignores server-only and unknown ones, refuses bad values", async () => {
    const deps = testRegistry({ IDENTITY_USER_FIELDS: FIELDS });
    const { user } = await aSignedUpUser(deps);
    await updateUser(deps, { userId: user.id, fields: { phone: "+44 20" } });
    expect((await updateUser(deps, { userId: user.id, fields: { age: 42 } })).extraFields).toEqual({ phone: "+44 20", age: 42 });
    expect((await updateUser(deps, { userId: user.id, fields: { plan: "enterprise", isAdmin: true } })).extraFields).toEqual({ phone: "+44 20", age: 42 });
    expect(await errorCode(updateUser(deps, { userId: user.id, fields: { age: "old" } }))).toBe("VALIDATION_ERROR");
    expect((await deps.store.findUserById(user.id))!.extraFields).toEqual({ phone: "+44 20", age: 42 });
  });

  it("keeps both of two concurrent updates of different extra fields (or of one and the name), removes one sent as null", async () => {
    const deps = testRegistry({ IDENTITY_USER_FIELDS: FIELDS });
    const { user } = await aSignedUpUser(deps);
    await deps.store.updateUser(user.id, { extraFields: { plan: "pro", phone: "+1 212", age: 41 } });
    // Each request read both fields before either wrote: neither may put back the value it read.
    await Promise.all([updateUser(deps, { userId: user.id, fields: { phone: "+44 20" } }), updateUser(deps, { userId: user.id, fields: { age: 42 } })]);
    expect((await deps.store.findUserById(user.id))!.extraFields).toEqual({ plan: "pro", phone: "+44 20", age: 42 });
    await Promise.all([updateUser(deps, { userId: user.id, fields: { name: "Ada King" } }), updateUser(deps, { userId: user.id, fields: { phone: null, age: 43 } })]);
    expect(await deps.store.findUserById(user.id)).toMatchObject({ name: "Ada King", extraFields: { plan: "pro", age: 43 } });
  });

  it("refuses the email, a taken username, bad values and an unknown user, changing nothing", async () => {
    const deps = testRegistry();
    await aSignedUpUser(deps, { username: "taken" });
    const { user } = await aSignedUpUser(deps, { username: "mine" });
    expect(await errorCode(updateUser(deps, { userId: user.id, fields: { email: "x@example.com" } }))).toBe("EMAIL_CAN_NOT_BE_UPDATED");
    expect(await errorCode(updateUser(deps, { userId: user.id, fields: { username: "TAKEN" } }))).toBe("USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER");
    expect(await errorCode(updateUser(deps, { userId: user.id, fields: { name: "  " } }))).toBe("VALIDATION_ERROR");
    expect(await errorCode(updateUser(deps, { userId: user.id, fields: { image: 5 } }))).toBe("VALIDATION_ERROR");
    expect(await errorCode(updateUser(deps, { userId: "nobody", fields: { name: "X" } }))).toBe("USER_NOT_FOUND");
    expect(await deps.store.findUserById(user.id)).toEqual(user);
    // Renaming to one's own username (another case) is not a clash.
    expect(await updateUser(deps, { userId: user.id, fields: { username: "MINE" } })).toMatchObject({ username: "mine", displayUsername: "MINE" });
  });

  it("refuses an image that is not https: or a raster data URL and keeps the stored one; an empty one removes it", async () => {
    const deps = testRegistry();
    const { user } = await aSignedUpUser(deps);
    await updateUser(deps, { userId: user.id, fields: { image: "https://img.example/a.png" } });
    for (const image of ["data:image/svg+xml;base64,PHN2Zz4=", "http://img.example/a.png", "javascript:alert(1)"]) {
      expect(await errorCode(updateUser(deps, { userId: user.id, fields: { image } })), image).toBe("VALIDATION_ERROR");
    }
    expect((await deps.store.findUserById(user.id))!.image).toBe("https://img.example/a.png");
    expect((await updateUser(deps, { userId: user.id, fields: { image: "" } })).image).toBeNull();
  });
});
