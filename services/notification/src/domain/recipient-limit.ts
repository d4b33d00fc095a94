/**
 * The per-recipient limit: however many callers, replicas and client IPs ask, one address gets at most
 * `limit` messages in any window of `windowSeconds`. Counted in the notification database (the send slots),
 * so every replica sees the same count. The address itself is never stored or logged for this: only a hash.
 */
import { createHash } from "node:crypto";
import type { TemplateName } from "../templates/index.js";
import type { Registry } from "./ports.js";

type Deps = Pick<Registry, "config" | "store" | "now">;

/**
 * The mailbox an address reaches: a subaddress (local+tag@domain, RFC 5233) lands in local@domain at most
 * providers, so counting each tag apart would let one inbox be flooded through as many tags as wanted. Two
 * mailboxes that differ only by a tag on a server without subaddressing share a limit, which costs nothing.
 */
export function mailboxOf(recipient: string): string {
  const at = recipient.lastIndexOf("@");
  const plus = recipient.indexOf("+");
  return plus > 0 && plus < at ? recipient.slice(0, plus) + recipient.slice(at) : recipient;
}

/**
 * Which allowance a message draws on. Anyone may ask for a reset or a verification mail to any address, but
 * only someone past the password step gets a sign-in code mailed: with one shared allowance, a stranger's
 * five reset requests would keep the user's own sign-in codes from arriving, again every window. So sign-in
 * codes have an allowance of their own (the same limit), and strangers' requests cannot use it up.
 */
export function allowanceOf(template: TemplateName): "sign-in" | "account" {
  return template === "sign-in-code" ? "sign-in" : "account";
}

/**
 * A stable, non-reversible-at-a-glance name for an address's mailbox and allowance (the address already
 * trimmed and lower-cased). The account allowance keeps the plain hash of the mailbox it always had.
 */
export function recipientKey(recipient: string, template?: TemplateName): string {
  const allowance = template ? allowanceOf(template) : "account";
  return createHash("sha256")
    .update(allowance === "account" ? mailboxOf(recipient) : `${allowance}:${mailboxOf(recipient)}`)
    .digest("hex");
}

/** True when the recipient may get one more message of this kind now (and counts it); false when over the limit. */
export async function takeRecipientAllowance(deps: Deps, recipient: string, template: TemplateName): Promise<boolean> {
  const { limit, windowSeconds } = deps.config.recipientLimit;
  if (limit === 0) return true;
  const now = deps.now();
  return deps.store.takeRecipientSlot(recipientKey(recipient, template), limit, now, new Date(now.getTime() - windowSeconds * 1000));
}

/**
 * Deletes slots that have been free for a window, once per window, so the table holds only recipients mailed
 * recently. Returns a stop function.
 */
export function startRecipientSlotPurge(deps: Pick<Registry, "config" | "store" | "now" | "log">): () => void {
  const windowMs = deps.config.recipientLimit.windowSeconds * 1000;
  const timer = setInterval(() => {
    deps.store.purgeRecipientSlots(new Date(deps.now().getTime() - windowMs)).catch((error: unknown) => {
      deps.log.warn("could not purge recipient slots; will try again", { error: error instanceof Error ? error.message : String(error) });
    });
  }, windowMs);
  timer.unref();
  return () => clearInterval(timer);
}
