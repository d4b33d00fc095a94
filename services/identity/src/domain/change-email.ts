/**
 * Change email. An unverified user's address changes at once (and the new one gets a verification link);
 * a verified user confirms from the current address, through a verification token carrying updateTo.
 */
import { AuthError } from "@auth-platform/proto/errors";
import type { Language } from "@auth-platform/runtime/language";
import { apiLink, mailKey } from "./links.js";
import { voidResetLinks } from "./password-reset.js";
import type { Registry } from "./ports.js";
import { signVerificationToken } from "./tokens.js";
import { normaliseEmail } from "./validation.js";
import { mailVerificationLink, moveToEmail } from "./verification.js";

type Deps = Pick<Registry, "config" | "store" | "mail" | "sessions" | "now">;

export async function changeEmail(deps: Deps, input: { userId: string; newEmail: string; callbackUrl?: string; language?: Language }): Promise<void> {
  const { config } = deps;
  if (!config.changeEmailEnabled) throw new AuthError("CHANGE_EMAIL_IS_DISABLED");
  const newEmail = normaliseEmail(input.newEmail);
  const user = await deps.store.findUserById(input.userId);
  if (!user) throw new AuthError("USER_NOT_FOUND");
  if (newEmail === user.email) throw new AuthError("EMAIL_IS_THE_SAME");
  // The generic refusal (docs/adr/0023-compatible-answers-that-reveal-nothing.md): a signed-in user learns nothing about who else has an account.
  if (await deps.store.findUserByEmail(newEmail)) throw new AuthError("COULDNT_UPDATE_YOUR_EMAIL");

  if (!user.emailVerified) {
    const updated = await moveToEmail(deps, user.id, newEmail);
    if (!updated) throw new AuthError("USER_NOT_FOUND");
    // Reset links went to the old address, whose mailbox is not the user's any more.
    await voidResetLinks(deps, user.id);
    if (config.emailVerification.enabled) await mailVerificationLink(deps, updated, input);
    return;
  }
  const token = await signVerificationToken({ userId: user.id, email: user.email, updateTo: newEmail }, config.secret, config.emailVerification.expiresInSeconds, deps.now());
  const url = apiLink(config.baseUrl, "/verify-email", { token, callbackURL: input.callbackUrl });
  // Step 1 of 2: the current address approves; the approval mails step 2 to the new one (verification.ts).
  await deps.mail.send(user.email, "change-email", { url, name: user.name, email: user.email, new_email: newEmail }, mailKey("change-email", token), input.language);
}
