/**
 * A user's image is an https: URL or a base64 PNG, JPEG, WebP or GIF data URL (docs/http-api.md): safe in an
 * <img src>. Every other kind is a 400 VALIDATION_ERROR naming the image, through sign-up, update-user and
 * admin update-user alike, and the stored image stays as it was.
 */
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { PASSWORD, aUser, anAdmin } from "./admin-fixtures.js";

const platform = usePlatform();

const REFUSED: Array<[string, string]> = [
  ["a javascript: URL", "javascript:alert(document.cookie)"],
  ["an HTML data URL", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="],
  ["an SVG data URL", "data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"],
  ["an http: URL", "http://img.example/a.png"],
  ["a relative path", "/avatar.png"],
  ["an https: URL past 2048 characters", `https://img.example/${"a".repeat(2048)}.png`],
];
const KEPT = "https://img.example/kept.png";
const WEBP = "data:image/webp;base64,UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA";

const refusal = (body: { code?: string; message?: string }) => ({ code: body.code, imageNamed: body.message?.startsWith("Invalid image") });

describe("user images", () => {
  it.each(REFUSED)("sign-up with %s is 400 VALIDATION_ERROR and creates no user", async (_kind, image) => {
    const email = uniqueEmail("image");
    const res = await platform.client().post("/sign-up/email", { name: "Ada", email, password: PASSWORD, image });
    expect(res.status).toBe(400);
    expect(refusal(res.body)).toEqual({ code: "VALIDATION_ERROR", imageNamed: true });
    expect((await platform.client().post("/sign-in/email", { email, password: PASSWORD })).status).toBe(401);
  });

  it("update-user and admin update-user refuse each kind and keep the stored image", async () => {
    const grace = await aUser(platform);
    const admin = await anAdmin(platform);
    expect((await grace.c.post("/update-user", { image: KEPT })).status).toBe(200);
    for (const [kind, image] of REFUSED) {
      const own = await grace.c.post("/update-user", { image });
      expect({ kind, status: own.status, ...refusal(own.body) }).toEqual({ kind, status: 400, code: "VALIDATION_ERROR", imageNamed: true });
      const byAdmin = await admin.c.post("/admin/update-user", { userId: grace.id, data: { image } });
      expect({ kind, status: byAdmin.status, ...refusal(byAdmin.body) }).toEqual({ kind, status: 400, code: "VALIDATION_ERROR", imageNamed: true });
    }
    expect((await grace.c.get("/get-session?disableCookieCache=true")).body.user.image).toBe(KEPT);
  });

  it("keeps https: URLs and raster data URLs; an empty image is none", async () => {
    const res = await platform.client().post("/sign-up/email", { name: "Ada", email: uniqueEmail("image"), password: PASSWORD, image: "" });
    expect(res.status).toBe(200);
    expect(res.body.user.image).toBeNull();
    const grace = await aUser(platform);
    expect((await grace.c.post("/update-user", { image: WEBP })).status).toBe(200);
    expect((await grace.c.get("/get-session?disableCookieCache=true")).body.user.image).toBe(WEBP);
  });

  it("an image stored before the rule is answered as none, in the session and in member lists", async () => {
    const grace = await aUser(platform);
    await platform.services.identity.deps.store.updateUser(grace.id, { image: "javascript:alert(document.cookie)" });
    expect((await grace.c.get("/get-session?disableCookieCache=true")).body.user.image).toBeNull();
    const organization = await grace.c.post("/organization/create", { name: "Old images", slug: `old-images-${Date.now().toString(36)}` });
    expect(organization.status).toBe(200);
    expect(organization.body.members[0].user.image).toBeNull();
  });
});
