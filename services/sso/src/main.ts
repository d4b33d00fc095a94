/** sso service process: configuration from the environment, then start(); graceful stop on SIGTERM. */
import { runService } from "@auth-platform/runtime/main";
import { ssoConfig } from "./config.js";
import { start } from "./start.js";

runService("sso", () => start(ssoConfig(process.env)));
