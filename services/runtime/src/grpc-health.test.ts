/** Our grpc.health.v1 service, called through the reference definition (grpc-health-check's own proto). */
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation as Reference } from "grpc-health-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HealthImplementation } from "./grpc-health.js";

const referenceDefinition = (() => {
  let captured: grpc.ServiceDefinition | undefined;
  new Reference().addToServer({ addService: (service: grpc.ServiceDefinition) => (captured = service) } as unknown as grpc.Server);
  return captured!;
})();
const HealthClient = grpc.makeGenericClientConstructor(referenceDefinition, "Health");
type Client = InstanceType<typeof HealthClient> & Record<string, (...args: unknown[]) => unknown>;

const health = new HealthImplementation({ "": "SERVING", "test.v1.Probe": "NOT_SERVING" });
const server = new grpc.Server();
let client: Client;

beforeAll(async () => {
  health.addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  client = new HealthClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as Client;
});
afterAll(() => {
  client?.close();
  server.forceShutdown();
});

const unary = (name: "check" | "list", request: object) =>
  new Promise<unknown>((resolve, reject) => client[name]!(request, (error: Error | null, response: unknown) => (error ? reject(error) : resolve(response))));

describe("grpc.health.v1.Health", () => {
  it("answers Check with each service's status, and NOT_FOUND for a service it does not know", async () => {
    expect(await unary("check", { service: "" })).toEqual({ status: "SERVING" });
    expect(await unary("check", { service: "test.v1.Probe" })).toEqual({ status: "NOT_SERVING" });
    await expect(unary("check", { service: "nope" })).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it("lists every service's status", async () => {
    expect(await unary("list", {})).toEqual({ statuses: { "": { status: "SERVING" }, "test.v1.Probe": { status: "NOT_SERVING" } } });
  });

  it("streams a service's status on Watch, then every change, and SERVICE_UNKNOWN for an unknown one", async () => {
    const seen: string[] = [];
    const stream = client.watch!({ service: "later.v1.Service" }) as grpc.ClientReadableStream<{ status: string }>;
    const twoSeen = new Promise<void>((resolve) =>
      stream.on("data", (message: { status: string }) => {
        seen.push(message.status);
        if (seen.length === 1) health.setStatus("later.v1.Service", "SERVING");
        if (seen.length === 2) resolve();
      }),
    );
    stream.on("error", () => undefined);
    await twoSeen;
    stream.cancel();
    expect(seen).toEqual(["SERVICE_UNKNOWN", "SERVING"]);
  });
});
