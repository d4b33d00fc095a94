/**
 * has-permission: what a role may do in the admin area. Admin roles hold every permission below; any other
 * role none (the admin area has no finer-grained roles here).
 */
import { requireCaller } from "@auth-platform/runtime/caller";
import { isAdminRole } from "./authorize.js";
import type { Caller, Registry } from "./ports.js";

export const ADMIN_PERMISSIONS: Record<string, readonly string[]> = {
  user: ["create", "list", "set-role", "ban", "impersonate", "delete", "set-password", "get", "update"],
  session: ["list", "revoke", "delete"],
  // Webhook endpoints and their delivery log (docs/http-api/webhooks.md).
  webhook: ["list", "create", "update", "delete"],
};

/** Whether the role grants every asked action; an unknown resource or action is not granted. */
export function roleHasPermissions(config: Registry["config"], role: string | undefined | null, asked: Record<string, unknown>): boolean {
  if (!isAdminRole(config, role)) return false;
  return Object.entries(asked).every(([resource, actions]) => {
    // Own keys only: "constructor" or "toString" are not resources.
    const granted = Object.hasOwn(ADMIN_PERMISSIONS, resource) ? ADMIN_PERMISSIONS[resource] : undefined;
    return Array.isArray(actions) && granted !== undefined && actions.every((action) => typeof action === "string" && granted.includes(action));
  });
}

export async function hasPermission(deps: Pick<Registry, "config">, caller: Caller | undefined, asked: Record<string, unknown>): Promise<boolean> {
  return roleHasPermissions(deps.config, requireCaller(caller).role, asked);
}
