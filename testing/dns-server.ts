/**
 * A real DNS server (dns2, UDP) on loopback for tests: it answers the TXT records a test sets, NXDOMAIN
 * for every other name, and can be told to fail (SERVFAIL) or stay silent (a resolver times out) for a
 * name. Point a resolver at `servers` (node:dns `Resolver.setServers`, or the sso service's
 * SSO_DNS_SERVERS).
 */
import dns2 from "dns2";

const { Packet } = dns2;

type Behaviour = { kind: "txt"; records: string[][] } | { kind: "servfail" } | { kind: "silent" };

export interface TestDnsServer {
  /** `127.0.0.1:PORT`, for Resolver.setServers or a servers setting. */
  servers: string[];
  port: number;
  /**
   * Serves these TXT records at `name` (a record is one string, or its character-strings as an array),
   * replacing what the name had. An empty list: the name exists with no TXT record (NOERROR, no answer).
   */
  setTxt(name: string, records: ReadonlyArray<string | readonly string[]>): void;
  /** Answers SERVFAIL for `name`. */
  failFor(name: string): void;
  /** Never answers a query for `name`. */
  silentFor(name: string): void;
  /** Forgets `name`: NXDOMAIN again. */
  remove(name: string): void;
  /** Names asked so far (lower case, no trailing dot), oldest first. */
  queries: string[];
  stop(): Promise<void>;
}

const key = (name: string) => name.toLowerCase().replace(/\.$/, "");

export async function startDnsServer(): Promise<TestDnsServer> {
  const names = new Map<string, Behaviour>();
  const queries: string[] = [];
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const [question] = request.questions;
      const response = Packet.createResponseFromRequest(request);
      if (!question) {
        response.header.rcode = Packet.RCODE.FORMERR;
        void send(response);
        return;
      }
      const name = key(question.name);
      queries.push(name);
      const behaviour = names.get(name);
      if (behaviour?.kind === "silent") return;
      if (behaviour === undefined) response.header.rcode = Packet.RCODE.NXDOMAIN;
      else if (behaviour.kind === "servfail") response.header.rcode = Packet.RCODE.SERVFAIL;
      else if (question.type === Packet.TYPE.TXT) {
        for (const data of behaviour.records) {
          response.answers.push(Packet.createResourceFromQuestion(question, { type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data }));
        }
      }
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  const port = addresses.udp?.port;
  if (port === undefined) throw new Error("the test DNS server did not bind");
  return {
    servers: [`127.0.0.1:${port}`],
    port,
    queries,
    setTxt: (name, records) => {
      names.set(key(name), { kind: "txt", records: records.map((record) => (typeof record === "string" ? [record] : [...record])) });
    },
    failFor: (name) => names.set(key(name), { kind: "servfail" }),
    silentFor: (name) => names.set(key(name), { kind: "silent" }),
    remove: (name) => names.delete(key(name)),
    stop: () => server.close(),
  };
}
