/**
 * The first admin: promotes the user with this email to the admin role (added to the user's other roles),
 * or creates that user with the role when there is none. Idempotent: running it again for an admin
 * changes nothing.
 */
import { rolesOf } from "../domain/authorize.js";
import type { IdentityPort, User } from "../domain/ports.js";

export interface BootstrapInput {
  email: string;
  /** Needed only to create the user. */
  password?: string;
  name?: string;
  /** One of adminRoles: any other would make a "first admin" who cannot use the admin area. */
  role: string;
}

export async function bootstrapAdmin(
  identity: Pick<IdentityPort, "listUsers" | "createUser" | "setRole">,
  input: BootstrapInput,
  adminRoles: string[],
): Promise<{ user: User; created: boolean }> {
  if (!adminRoles.includes(input.role))
    throw new Error(`--role ${JSON.stringify(input.role)} is not an admin role (ADMIN_ROLES: ${adminRoles.join(",")}): that user could not use the admin area.`);
  const email = input.email.trim().toLowerCase();
  const { users } = await identity.listUsers({ filterField: "email", filterOperator: "eq", filterValue: email, limit: 1, offset: 0, countLimit: 1 });
  const existing = users[0];
  if (existing) {
    // Added, not replacing: a promoted editor stays an editor.
    const roles = rolesOf(existing.role);
    const user = roles.includes(input.role) ? existing : await identity.setRole(existing.id, [...roles, input.role].join(","));
    return { user, created: false };
  }
  if (!input.password) throw new Error(`No user has the email ${email}: give a password (ADMIN_BOOTSTRAP_PASSWORD) to create one.`);
  const user = await identity.createUser({ email, password: input.password, name: input.name?.trim() || email.split("@")[0]!, role: input.role, extraFields: {} });
  return { user, created: true };
}
