/** notification service process: configuration from the environment, then start(); graceful stop on SIGTERM. */
import { runService } from "@auth-platform/runtime/main";
import { notificationConfig } from "./config.js";
import { start } from "./start.js";

runService("notification", () => start(notificationConfig(process.env)));
