/** identity service process: configuration from the environment, then start(); graceful stop on SIGTERM. */
import { runService } from "@auth-platform/runtime/main";
import { identityConfig } from "./config.js";
import { lowerHashingPriority } from "./hashing-priority.js";
import { start } from "./start.js";

runService("identity", async () => {
  const config = identityConfig(process.env);
  await lowerHashingPriority();
  return start(config);
});
