import { afterAll, describe, expect, it, vi } from "vitest";
import { schemaValidator } from "./schema-validator.js";

const schema = {
  fileName: "greeting.xsd",
  contents: `<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:test" xmlns="urn:test" elementFormDefault="qualified">
  <xs:element name="greeting"><xs:complexType><xs:attribute name="to" type="xs:string" use="required"/></xs:complexType></xs:element>
</xs:schema>`,
};

describe("schemaValidator", () => {
  const validator = schemaValidator({ schema: () => schema, preload: () => [], workers: 2 });
  afterAll(() => validator.close());

  it("tells a valid document from an invalid one", async () => {
    expect(await validator.isValid(`<greeting xmlns="urn:test" to="you"/>`)).toBe(true);
    expect(await validator.isValid(`<greeting xmlns="urn:test"/>`)).toBe(false);
    expect(await validator.isValid(`<farewell xmlns="urn:test" to="you"/>`)).toBe(false);
    // Not XML: xmllint's parse failure (exit 1) is an error, which samlify takes as a refusal too.
    await expect(validator.isValid("not xml at all")).rejects.toThrow(/exited with 1/);
  });

  it("keeps answering rightly across recycled workers and concurrent messages", async () => {
    // 250 messages, ten at a time over two workers: each worker is replaced after 50.
    const answers: boolean[] = [];
    for (let round = 0; round < 250 / 10; round++) {
      const batch = Array.from({ length: 10 }, (_, i) => validator.isValid(i % 2 === 0 ? `<greeting xmlns="urn:test" to="n${i}"/>` : `<greeting xmlns="urn:test" from="n${i}"/>`));
      answers.push(...(await Promise.all(batch)));
    }
    expect(answers.filter(Boolean)).toHaveLength(125);
    expect(answers.every((valid, i) => valid === (i % 2 === 0))).toBe(true);
  });

  it("ends workers left idle for 30 s, and starts one again when a message comes", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const idleValidator = schemaValidator({ schema: () => schema, preload: () => [], workers: 2 });
      await Promise.all([idleValidator.isValid(`<greeting xmlns="urn:test" to="a"/>`), idleValidator.isValid(`<greeting xmlns="urn:test" to="b"/>`)]);
      expect(idleValidator.threads()).toBe(2);
      vi.advanceTimersByTime(29_999);
      expect(idleValidator.threads()).toBe(2);
      vi.advanceTimersByTime(1);
      expect(idleValidator.threads()).toBe(0);
      expect(await idleValidator.isValid(`<greeting xmlns="urn:test" to="c"/>`)).toBe(true);
      expect(idleValidator.threads()).toBe(1);
      idleValidator.close();
      expect(idleValidator.threads()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
