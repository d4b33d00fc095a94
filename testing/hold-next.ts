/**
 * Holds the next call of `method` on `target` (a service's port or store) until `release()`; `reached` settles
 * once it is called, so a race test can run a competing change while the call waits.
 */
export function holdNext<T extends object>(target: T, method: keyof T) {
  const original = target[method] as (...args: unknown[]) => Promise<unknown>;
  let entered!: () => void;
  const reached = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  (target as Record<keyof T, unknown>)[method] = async (...args: unknown[]) => {
    entered();
    await gate;
    return original.apply(target, args);
  };
  return { reached, release, restore: () => ((target as Record<keyof T, unknown>)[method] = original) };
}
