/** oauth service process: configuration from the environment, then start(); graceful stop on SIGTERM. */
import { runService } from "@auth-platform/runtime/main";
import { oauthConfig } from "./config.js";
import { start } from "./start.js";

runService("oauth", () => start(oauthConfig(process.env)));
