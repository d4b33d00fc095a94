/** The image rule: what a client may set as a user's image, and which provider avatars are kept. */
import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { IMAGE_MAX_LENGTH, imageProblem } from "@auth-platform/runtime/user-image";
import { checkImage, providerImage } from "./validation.js";

const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** Every kind of image a client must not set (and a provider's avatar that is dropped). */
const REFUSED_IMAGES: Array<[string, string]> = [
  ["a javascript: URL", "javascript:alert(document.cookie)"],
  ["a javascript: URL in capitals", "JAVASCRIPT:alert(1)"],
  ["a scheme split by a tab", "java\tscript:alert(1)"],
  ["an HTML data URL", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="],
  ["an SVG data URL", "data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"],
  ["an SVG data URL in plain text", "data:image/svg+xml,<svg onload=alert(1)>"],
  ["a data URL without base64", "data:image/png,abc"],
  ["a data URL whose body is not base64", "data:image/png;base64,<script>"],
  ["an http: URL", "http://img.example/a.png"],
  ["a protocol-relative URL", "//img.example/a.png"],
  ["a relative path", "/avatar.png"],
  ["a file: URL", "file:///etc/passwd"],
  ["an https: URL with a password", "https://user:secret@img.example/a.png"],
  ["an https: URL with a space", "https://img.example/a b.png"],
  ["anything too long", `https://img.example/${"a".repeat(IMAGE_MAX_LENGTH)}.png`],
];

describe("user images", () => {
  it.each([
    ["an https: URL", "https://img.example/a.png?size=64"],
    ["a PNG data URL", PNG],
    ...(["jpeg", "webp", "gif"] as const).map((type) => [`a ${type} data URL`, `data:image/${type};base64,AAAA`]),
    ["an https: URL of exactly the limit", `https://img.example/${"a".repeat(IMAGE_MAX_LENGTH - 20)}`],
  ])("accepts %s", (_kind, image) => {
    expect(image.length).toBeLessThanOrEqual(IMAGE_MAX_LENGTH);
    expect(imageProblem(image)).toBeUndefined();
    expect(checkImage(image)).toBe(image);
    expect(providerImage(image)).toBe(image);
  });

  it.each(REFUSED_IMAGES)("refuses %s from a client (VALIDATION_ERROR naming the image) and drops it from a provider", (_kind, image) => {
    expect(() => checkImage(image)).toThrow(AuthError);
    expect(() => checkImage(image)).toThrow(/^Invalid image: /);
    try {
      checkImage(image);
    } catch (error) {
      expect((error as AuthError).code).toBe("VALIDATION_ERROR");
      expect((error as AuthError).http).toBe(400);
    }
    expect(providerImage(image)).toBeNull();
  });

  it("an empty image is no image; a provider without an avatar has none", () => {
    expect(checkImage("")).toBeNull();
    expect(providerImage(undefined)).toBeNull();
    expect(providerImage("")).toBeNull();
  });
});
