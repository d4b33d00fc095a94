/**
 * Operator command: creates the first admin, or promotes an existing user, over gRPC to the identity
 * service with the admin workload's certificate (GRPC_TLS_DIR, as the admin service itself).
 *
 *   npm run admin:bootstrap -- --email ops@example.com [--name "Ops"]        (from source)
 *   node dist/admin-bootstrap.js --email ops@example.com                     (from the build, the chart's Job)
 *
 * --role gives one of ADMIN_ROLES (default the first); an existing user keeps their other roles.
 * The password of a new user comes from ADMIN_BOOTSTRAP_PASSWORD (never a flag: it would stay in the shell
 * history and the process list). Under `make dev` the admin certificate is data/tls/admin, used when
 * GRPC_TLS_DIR is not set.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { AdminUserServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/admin_user";
import { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { certificatesReady } from "@auth-platform/runtime/grpc-transport";
import { runMain } from "@auth-platform/runtime/main";
import { adminConfig } from "./config.js";
import { bootstrapAdmin } from "./bootstrap/promote.js";
import { identityPortOf } from "./registry.js";

runMain("admin-bootstrap", async () => {
  const { values } = parseArgs({ options: { email: { type: "string" }, name: { type: "string" }, role: { type: "string" } } });
  const email = values.email ?? process.env.ADMIN_BOOTSTRAP_EMAIL;
  if (!email) throw new Error("usage: admin-bootstrap --email <address> [--name <name>] [--role <one of ADMIN_ROLES>] (ADMIN_BOOTSTRAP_PASSWORD to create the user)");
  const env = { ...process.env };
  if (!env.GRPC_TLS_DIR && env.GRPC_INSECURE !== "true" && existsSync("data/tls/admin")) env.GRPC_TLS_DIR = "data/tls/admin";
  const config = adminConfig(env);
  await certificatesReady(config.grpc.tls);
  const client = createGrpcClient(IdentityServiceClient, config.identityServiceUrl, { tls: config.grpc.tls, serverName: "identity" });
  const users = createGrpcClient(AdminUserServiceClient, config.identityServiceUrl, { tls: config.grpc.tls, serverName: "identity" });
  try {
    const role = values.role ?? config.adminRoles[0]!;
    const { user, created } = await bootstrapAdmin(
      identityPortOf(client, users),
      { email, name: values.name, password: process.env.ADMIN_BOOTSTRAP_PASSWORD, role },
      config.adminRoles,
    );
    process.stdout.write(`${created ? "created" : "promoted"} ${user.email} (id ${user.id}) with role ${user.role}\n`);
  } finally {
    client.close();
    users.close();
  }
  // The certificate reload timer of the gRPC transport would keep a one-off command alive.
  process.exit(0);
});
