/**
 * The first admin: promotes the user with this email to the admin role, or creates that user with the
 * role when there is none. Idempotent: running it again for an admin changes nothing.
 */
import type { IdentityPort, User } from "../domain/ports.js";

export interface BootstrapInput {
  email: string;
  /** Needed only to create the user. */
  password?: string;
  name?: string;
  role: string;
}

export async function bootstrapAdmin(identity: Pick<IdentityPort, "listUsers" | "createUser" | "setRole">, input: BootstrapInput): Promise<{ user: User; created: boolean }> {
  const email = input.email.trim().toLowerCase();
  const { users } = await identity.listUsers({ filterField: "email", filterOperator: "eq", filterValue: email, limit: 1, offset: 0, countLimit: 1 });
  const existing = users[0];
  if (existing) {
    const user = existing.role?.split(",").map((r) => r.trim()).includes(input.role) ? existing : await identity.setRole(existing.id, input.role);
    return { user, created: false };
  }
  if (!input.password) throw new Error(`No user has the email ${email}: give a password (ADMIN_BOOTSTRAP_PASSWORD) to create one.`);
  const user = await identity.createUser({ email, password: input.password, name: input.name?.trim() || email.split("@")[0]!, role: input.role, extraFields: {} });
  return { user, created: true };
}
