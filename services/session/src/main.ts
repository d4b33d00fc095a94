/** session service process: configuration from the environment, then start(); graceful stop on SIGTERM. */
import { runService } from "@auth-platform/runtime/main";
import { sessionConfig } from "./config.js";
import { start } from "./start.js";

runService("session", () => start(sessionConfig(process.env)));
