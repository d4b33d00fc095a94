/**
 * The standard grpc.health.v1.Health service (Check, Watch, List), written over grpc-js and protobuf's wire
 * format by hand: the same protocol and behaviour as the grpc-health-check package, without loading
 * protobufjs and a .proto parser into every process at start (about 10 MiB of each one's idle memory;
 * bench/footprint.ts).
 */
import type * as grpc from "@grpc/grpc-js";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

export type ServingStatus = "UNKNOWN" | "SERVING" | "NOT_SERVING" | "SERVICE_UNKNOWN";
const STATUS_NUMBER: Record<ServingStatus, number> = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 };
const NOT_FOUND = 5;
const RESOURCE_EXHAUSTED = 8;
/** List answers at most this many services (as the reference implementation does). */
const LIST_LIMIT = 100;

/** HealthCheckRequest { string service = 1; } */
function decodeRequest(bytes: Buffer): { service: string } {
  const reader = new BinaryReader(bytes);
  let service = "";
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) service = reader.string();
    else reader.skip(wireType);
  }
  return { service };
}

/** HealthCheckResponse { ServingStatus status = 1; } */
function writeResponse(writer: BinaryWriter, status: ServingStatus): BinaryWriter {
  const number = STATUS_NUMBER[status];
  return number === 0 ? writer : writer.tag(1, WireType.Varint).int32(number);
}
const encodeResponse = (response: { status: ServingStatus }) => Buffer.from(writeResponse(new BinaryWriter(), response.status).finish());

/** HealthListResponse { map<string, HealthCheckResponse> statuses = 1; } */
function encodeList(response: { statuses: Record<string, { status: ServingStatus }> }): Buffer {
  const writer = new BinaryWriter();
  for (const [name, { status }] of Object.entries(response.statuses)) {
    writer.tag(1, WireType.LengthDelimited).fork();
    writer.tag(1, WireType.LengthDelimited).string(name);
    writer.tag(2, WireType.LengthDelimited).fork();
    writeResponse(writer, status);
    writer.join().join();
  }
  return Buffer.from(writer.finish());
}

const method = (name: string, responseStream: boolean, responseSerialize: (value: never) => Buffer) => ({
  path: `/grpc.health.v1.Health/${name}`,
  requestStream: false,
  responseStream,
  requestSerialize: (value: { service: string }) => Buffer.from(new BinaryWriter().tag(1, WireType.LengthDelimited).string(value.service).finish()),
  requestDeserialize: decodeRequest,
  responseSerialize,
  responseDeserialize: (bytes: Buffer) => bytes,
  originalName: name.charAt(0).toLowerCase() + name.slice(1),
});

export const healthServiceDefinition = {
  check: method("Check", false, encodeResponse),
  watch: method("Watch", true, encodeResponse),
  list: method("List", false, encodeList),
} as unknown as grpc.ServiceDefinition;

export class HealthImplementation {
  private readonly statuses = new Map<string, ServingStatus>();
  private readonly watchers = new Map<string, Set<(status: ServingStatus) => void>>();

  constructor(initial: Record<string, ServingStatus> = {}) {
    for (const [service, status] of Object.entries(initial)) this.statuses.set(service, status);
  }

  setStatus(service: string, status: ServingStatus): void {
    this.statuses.set(service, status);
    for (const watcher of this.watchers.get(service) ?? []) watcher(status);
  }

  addToServer(server: grpc.Server): void {
    server.addService(healthServiceDefinition, {
      check: (call: grpc.ServerUnaryCall<{ service: string }, { status: ServingStatus }>, callback: grpc.sendUnaryData<{ status: ServingStatus }>) => {
        const status = this.statuses.get(call.request.service);
        if (status) callback(null, { status });
        else callback({ code: NOT_FOUND, details: `Health status unknown for service ${call.request.service}` });
      },
      watch: (call: grpc.ServerWritableStream<{ service: string }, { status: ServingStatus }>) => {
        const service = call.request.service;
        const watcher = (status: ServingStatus) => void call.write({ status });
        const set = this.watchers.get(service) ?? new Set();
        this.watchers.set(service, set.add(watcher));
        call.on("cancelled", () => set.delete(watcher));
        call.write({ status: this.statuses.get(service) ?? "SERVICE_UNKNOWN" });
      },
      list: (_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<{ statuses: Record<string, { status: ServingStatus }> }>) => {
        if (this.statuses.size > LIST_LIMIT) return callback({ code: RESOURCE_EXHAUSTED, details: "Too many services to list." });
        callback(null, { statuses: Object.fromEntries([...this.statuses].map(([service, status]) => [service, { status }])) });
      },
    });
  }
}
