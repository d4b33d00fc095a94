/**
 * Queues a message: renders its template, then writes it to the outbox before anything is sent. A repeated
 * idempotency key stores nothing and answers the first message's id, so a retried call never mails twice.
 * A recipient over the per-recipient limit gets nothing: the message is suppressed (logged with a hash of
 * the address, never stored or sent), and the caller gets the same success as ever with an empty id, so no
 * one upstream, the HTTP client least of all, can tell.
 */
import { AuthError } from "@auth-platform/proto/errors";
import type { Language } from "@auth-platform/runtime/language";
import { newId } from "@auth-platform/runtime/random";
import { renderTemplate, TemplateError, type TemplateName, type Variables } from "../templates/index.js";
import type { Registry } from "./ports.js";
import { recipientKey, takeRecipientAllowance } from "./recipient-limit.js";

type Deps = Pick<Registry, "config" | "store" | "now" | "wake" | "log">;

export interface QueueMessageInput {
  to: string;
  template: TemplateName;
  variables: Variables;
  idempotencyKey?: string;
  /** The language to write it in (default English). */
  language?: Language;
}

/** `id` is empty for a suppressed message. */
export async function queueMessage(deps: Deps, input: QueueMessageInput): Promise<{ id: string; created: boolean; suppressed?: true }> {
  let rendered;
  try {
    rendered = renderTemplate(input.template, input.variables, { appName: deps.config.appName, footerUrl: deps.config.footerUrl, language: input.language });
  } catch (error) {
    if (error instanceof TemplateError) throw new AuthError("VALIDATION_ERROR", error.message);
    throw error;
  }
  const idempotencyKey = input.idempotencyKey || null;
  // A retried call is answered before the limit is counted: it sends nothing new.
  if (idempotencyKey) {
    const existing = await deps.store.findByIdempotencyKey(idempotencyKey);
    if (existing) return { id: existing.id, created: false };
  }
  const recipient = input.to.trim().toLowerCase();
  if (!(await takeRecipientAllowance(deps, recipient, input.template))) {
    const { limit, windowSeconds } = deps.config.recipientLimit;
    deps.log.warn("mail suppressed: recipient over its limit", {
      template: input.template,
      recipientKey: recipientKey(recipient, input.template).slice(0, 16),
      limit,
      windowSeconds,
    });
    return { id: "", created: false, suppressed: true };
  }
  const now = deps.now();
  const result = await deps.store.insert({
    id: newId(),
    idempotencyKey,
    recipient,
    template: input.template,
    ...rendered,
    nextAttemptAt: now,
    createdAt: now,
  });
  if (result.created) deps.wake();
  return result;
}
