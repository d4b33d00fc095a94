/**
 * The one rule for a user's image (docs/http-api.md): an https: URL or a base64 PNG, JPEG, WebP or GIF data
 * URL, safe in an <img src>. Identity applies it to what it stores (a client's bad image refused, a provider's
 * dropped); the gateway applies it to every image it answers, so a value stored before the rule is not served.
 */

/** The longest image kept: the web app scales its pictures into data URLs of at most this length. */
export const IMAGE_MAX_LENGTH = 2048;

/**
 * A base64 raster image; never SVG (an SVG can carry script) nor any other media type. The slash in the class
 * is escaped: vite's import scanner misreads the file otherwise (zod resolved to another copy in tests).
 */
const RASTER_DATA_URL = /^data:image\/(?:png|jpeg|webp|gif);base64,[A-Za-z0-9+/]+={0,2}$/;

/**
 * Why an image is refused, or undefined when it is safe in an <img src>: an https: URL or a base64 PNG, JPEG,
 * WebP or GIF data URL, at most IMAGE_MAX_LENGTH characters, without spaces or control characters (which
 * browsers drop from a URL, so "java\tscript:" would read as a scheme) and without a user name or password.
 */
export function imageProblem(image: string): string | undefined {
  if (image.length > IMAGE_MAX_LENGTH) return `at most ${IMAGE_MAX_LENGTH} characters`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is this pattern's purpose.
  if (/[\u0000-\u0020\u007f-\u009f]/.test(image)) return "must not contain spaces or control characters";
  if (image.startsWith("data:")) return RASTER_DATA_URL.test(image) ? undefined : "a data URL must be a base64 PNG, JPEG, WebP or GIF image";
  const url = URL.parse(image);
  if (url?.protocol !== "https:") return "expected an https: URL or a data:image URL";
  if (url.username || url.password) return "must not carry a user name or password";
  return undefined;
}

/** The image when it keeps the rule, else null (no image). */
export function safeImage(image: string | null | undefined): string | null {
  return image && !imageProblem(image) ? image : null;
}
