/** Whether a username is free: the same normalisation and rule as sign-up, compared lower-cased. */
import type { Registry } from "./ports.js";
import { normaliseUsername } from "./validation.js";

export async function isUsernameAvailable(deps: Pick<Registry, "store">, username: string): Promise<boolean> {
  return !(await deps.store.findUserByUsername(normaliseUsername(username)));
}
