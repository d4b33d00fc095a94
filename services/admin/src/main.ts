/** admin service process: configuration from the environment, then start(); graceful stop on SIGTERM. */
import { runService } from "@auth-platform/runtime/main";
import { adminConfig } from "./config.js";
import { start } from "./start.js";

runService("admin", () => start(adminConfig(process.env)));
