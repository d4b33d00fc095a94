/** organization service process: configuration from the environment, then start(); graceful stop on SIGTERM. */
import { runService } from "@auth-platform/runtime/main";
import { organizationConfig } from "./config.js";
import { start } from "./start.js";

runService("organization", () => start(organizationConfig(process.env)));
