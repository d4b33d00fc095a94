/** gateway process: configuration from the environment, then startGateway(); graceful stop on SIGTERM. */
import { closeOnSignals, runMain } from "@auth-platform/runtime/main";
import { gatewayConfig } from "./config.js";
import { startGateway } from "./start.js";

/** The longest the gateway takes to close on SIGTERM: its requests, its queued security events (5 s each at most), its clients. */
const CLOSE_LIMIT_MS = 15_000;

runMain("gateway", async () => {
  const gateway = await startGateway(gatewayConfig(process.env));
  closeOnSignals(gateway, CLOSE_LIMIT_MS);
});
