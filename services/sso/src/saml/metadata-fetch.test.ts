import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSamlIdp, type TestSamlIdp } from "../../../../testing/saml-idp.js";
import { metadataFetcher } from "./metadata-fetch.js";

let idp: TestSamlIdp;
let server: Server;
let base: string;
const pending: Array<() => void> = [];
let asked = 0;

beforeAll(async () => {
  idp = await createSamlIdp();
  server = createServer((req, res) => {
    asked += 1;
    if (req.url === "/metadata") {
      res.writeHead(200, { "content-type": "application/xml" }).end(idp.metadataXml());
    } else if (req.url === "/elsewhere") {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data" }).end();
    } else if (req.url === "/huge") {
      res.writeHead(200, { "content-type": "application/xml" }).end(`<x>${"a".repeat(300 * 1024)}</x>`);
    } else if (req.url === "/slow") {
      res.writeHead(200, { "content-type": "application/xml" });
      pending.push(() => res.end());
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const end of pending) end();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const allowAll = async (url: string) => new URL(url);

describe("IdP metadata fetch", () => {
  it("reads the metadata an address answers", async () => {
    expect(await metadataFetcher(allowAll)(`${base}/metadata`)).toBe(idp.metadataXml());
  });

  it("refuses an address the outbound check refuses, without asking it", async () => {
    const refuse = async () => {
      throw new Error("private address");
    };
    const before = asked;
    await expect(metadataFetcher(refuse)(`${base}/metadata`)).rejects.toMatchObject({ code: "INVALID_SAML_METADATA" });
    expect(asked).toBe(before);
  });

  it("does not follow a redirect, refuses a missing page, an oversized body and a silent server", async () => {
    for (const path of ["/elsewhere", "/nothing", "/huge"]) {
      await expect(metadataFetcher(allowAll)(`${base}${path}`)).rejects.toMatchObject({ code: "INVALID_SAML_METADATA" });
    }
    await expect(metadataFetcher(allowAll, 200)(`${base}/slow`)).rejects.toMatchObject({ code: "INVALID_SAML_METADATA" });
  });
});
