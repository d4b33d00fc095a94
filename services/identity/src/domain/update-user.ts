/** Update user: name, image, username and configured extra fields; the email only through change-email. */
import { AuthError } from "@auth-platform/proto/errors";
import type { UserPatch, UserRecord } from "../store/identity-store.js";
import type { Registry } from "./ports.js";
import { checkExtraFields, checkImage, checkName, normaliseUsername } from "./validation.js";

type Deps = Pick<Registry, "config" | "store" | "sessions">;

const OWN_FIELDS = new Set(["name", "image", "username", "displayUsername"]);

export async function updateUser(deps: Deps, input: { userId: string; fields: Record<string, unknown> }): Promise<UserRecord> {
  const { fields } = input;
  if ("email" in fields) throw new AuthError("EMAIL_CAN_NOT_BE_UPDATED");
  const patch: UserPatch = {};
  if (fields.name !== undefined) patch.name = checkName(fields.name);
  if (fields.image !== undefined) {
    if (fields.image !== null && typeof fields.image !== "string") throw new AuthError("VALIDATION_ERROR", "Invalid image: expected a string or null");
    patch.image = fields.image === null ? null : checkImage(fields.image);
  }
  if (fields.username !== undefined) {
    if (typeof fields.username !== "string") throw new AuthError("VALIDATION_ERROR", "Invalid username: expected a string");
    patch.username = normaliseUsername(fields.username);
    patch.displayUsername = typeof fields.displayUsername === "string" ? fields.displayUsername : fields.username;
  } else if (typeof fields.displayUsername === "string") {
    patch.displayUsername = fields.displayUsername;
  }
  const extra = Object.fromEntries(Object.entries(fields).filter(([key]) => !OWN_FIELDS.has(key)));
  const user = await deps.store.findUserById(input.userId);
  if (!user) throw new AuthError("USER_NOT_FOUND");
  if (Object.keys(extra).length) {
    const fields = deps.config.userFields;
    // Checked against the stored fields (a required one must stay set), but only the fields the request names
    // are written, merged by the store: the others, and those the request may not set, stay as stored, even
    // when another update changes them meanwhile. A named field left out by the check (null) is removed.
    const checked = checkExtraFields({ ...user.extraFields, ...extra }, fields);
    const named = Object.keys(extra).filter((name) => Object.hasOwn(fields, name) && fields[name]!.input);
    if (named.length) patch.extraFields = Object.fromEntries(named.map((name) => [name, Object.hasOwn(checked, name) ? checked[name] : null]));
  }
  if (patch.username && patch.username !== user.username) {
    const holder = await deps.store.findUserByUsername(patch.username);
    if (holder && holder.id !== user.id) throw new AuthError("USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER");
  }
  const updated = await deps.store.updateUser(user.id, patch);
  if (!updated) throw new AuthError("USER_NOT_FOUND");
  return updated;
}
