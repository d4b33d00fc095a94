/**
 * A shutdown as named steps run in order (a service's server, then its stores and clients; the gateway's
 * requests, then its security events, then its clients). A step that fails is logged and the next still
 * runs, so a store still closes when a metrics server would not. `current()` names the step under way, for
 * the log line of a close that does not end in time (closeWithin, main.ts).
 */
import type { Logger } from "./log.js";

export interface Closer {
  name: string;
  // biome-ignore lint/suspicious/noConfusingVoidType: a close hook may be synchronous and return nothing.
  close(): Promise<unknown> | void;
}

export interface CloseSteps {
  run(): Promise<void>;
  /** The step under way; undefined before and after. */
  current(): string | undefined;
}

export function closeSteps(steps: Closer[], log: Pick<Logger, "error">): CloseSteps {
  let current: string | undefined;
  return {
    current: () => current,
    async run() {
      for (const step of steps) {
        current = step.name;
        try {
          await step.close();
        } catch (error) {
          log.error("close failed", { closer: step.name, error });
        }
      }
      current = undefined;
    },
  };
}
