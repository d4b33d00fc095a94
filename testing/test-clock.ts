/**
 * The clock a platform under test reads: `advance(ms)` moves Date forward for everything in the test's
 * process (the in-process services, and a provider started beside them), so a token or a ban expires without
 * waiting; timers keep running in real time. `restore()` gives the suite real time back.
 */
import { vi } from "vitest";

export interface TestClock {
  advance(ms: number): void;
  restore(): void;
}

export function testClock(): TestClock {
  let faked = false;
  return {
    advance(ms) {
      if (!faked) vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true, advanceTimeDelta: 1 });
      faked = true;
      vi.setSystemTime(Date.now() + ms);
    },
    restore() {
      if (faked) vi.useRealTimers();
      faked = false;
    },
  };
}
