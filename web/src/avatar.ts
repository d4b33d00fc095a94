/**
 * Profile images: the upload limit is 4 MB (docs/adr/0030-web-app.md), but the picture is stored as a small data URL in the
 * user's `image` field, not as the uploaded file: the user record travels with every session read (and the
 * session cache), and the platform accepts at most 2048 characters there. So the browser scales the picture
 * down to a square avatar (64 px, covering) and encodes it as WebP, lowering the quality (then the size) until
 * it fits. No file store is needed; a provider's image URL fits the same field.
 */
import { IMAGE_MAX_LENGTH, safeImage } from "@auth-platform/runtime/user-image";
import { translate } from "./i18n";

export const MAX_UPLOAD_BYTES = 4 * 1024 * 1024;
export const MAX_IMAGE_CHARS = IMAGE_MAX_LENGTH;

/** Why a picture was refused, in the reader's language (the account page shows it next to the file field). */
export class AvatarError extends Error {}

/**
 * The image to put in an <img src>, or null: only what the platform accepts and answers (the one rule,
 * runtime/user-image.ts: an https: URL or a raster data URL, docs/http-api.md).
 */
export const shownImage = safeImage;

async function loadImage(file: Blob): Promise<ImageBitmap> {
  try {
    return await createImageBitmap(file);
  } catch {
    throw new AvatarError(translate("account.imageUnreadable"));
  }
}

export async function avatarDataUrl(file: File): Promise<string> {
  if (file.size > MAX_UPLOAD_BYTES) throw new AvatarError(translate("account.imageTooLarge"));
  if (!file.type.startsWith("image/")) throw new AvatarError(translate("account.imageNotAnImage"));
  const bitmap = await loadImage(file);
  for (const size of [64, 48, 32]) {
    const canvas = document.createElement("canvas");
    canvas.width = size;
    canvas.height = size;
    const context = canvas.getContext("2d")!;
    const side = Math.min(bitmap.width, bitmap.height);
    context.drawImage(bitmap, (bitmap.width - side) / 2, (bitmap.height - side) / 2, side, side, 0, 0, size, size);
    for (const quality of [0.85, 0.7, 0.5, 0.3]) {
      const url = canvas.toDataURL("image/webp", quality);
      if (url.length <= MAX_IMAGE_CHARS) return url;
    }
  }
  throw new AvatarError(translate("account.imageTooComplex"));
}
