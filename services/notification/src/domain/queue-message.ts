/**
 * Queues a message: renders its template, then writes it to the outbox before anything is sent. A repeated
 * idempotency key stores nothing and answers the first message's id, so a retried call never mails twice.
 */
import { AuthError } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import { renderTemplate, TemplateError, type TemplateName, type Variables } from "../templates/index.js";
import type { Registry } from "./ports.js";

type Deps = Pick<Registry, "config" | "store" | "now" | "wake">;

export interface QueueMessageInput {
  to: string;
  template: TemplateName;
  variables: Variables;
  idempotencyKey?: string;
}

export async function queueMessage(deps: Deps, input: QueueMessageInput): Promise<{ id: string; created: boolean }> {
  let rendered;
  try {
    rendered = renderTemplate(input.template, input.variables, { appName: deps.config.appName, footerUrl: deps.config.footerUrl });
  } catch (error) {
    if (error instanceof TemplateError) throw new AuthError("VALIDATION_ERROR", error.message);
    throw error;
  }
  const now = deps.now();
  const result = await deps.store.insert({
    id: newId(),
    idempotencyKey: input.idempotencyKey || null,
    recipient: input.to.trim().toLowerCase(),
    template: input.template,
    ...rendered,
    nextAttemptAt: now,
    createdAt: now,
  });
  if (result.created) deps.wake();
  return result;
}
