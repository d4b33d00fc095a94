/**
 * A software WebAuthn authenticator for the protocol tests: it answers the options the passkey routes give
 * as a browser and a platform authenticator would, in Node (an ES256 key from node:crypto, a `none`
 * attestation in CBOR, authenticator data with its flags and counter, the client data JSON). Every field a
 * test attacks can be set: the origin, the relying party id, the counter, the user-verified flag.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";

// --- CBOR (RFC 8949), the part an attestation object needs: unsigned and negative integers, byte and text
// strings, arrays and maps, encoded canonically enough for any decoder.
type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor>;

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) {
    const out = Buffer.alloc(3);
    out[0] = (major << 5) | 25;
    out.writeUInt16BE(length, 1);
    return out;
  }
  const out = Buffer.alloc(5);
  out[0] = (major << 5) | 26;
  out.writeUInt32BE(length, 1);
  return out;
}

export function cborEncode(value: Cbor): Buffer {
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new Error("cbor: integers only");
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cborEncode)]);
  const entries = [...value.entries()];
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cborEncode(k), cborEncode(v)])]);
}

// --- The authenticator.
const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

/** Flags of the authenticator data (WebAuthn §6.1). */
const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

export interface SoftwareCredential {
  id: Buffer;
  privateKey: KeyObject;
  /** The COSE form of the public key. */
  cosePublicKey: Buffer;
  userHandle: string;
  counter: number;
}

export interface CeremonyOverrides {
  /** The origin the client data reports (a phishing page's, say). */
  origin?: string;
  /** The relying party id whose hash the authenticator data carries. */
  rpId?: string;
  /** The challenge signed (another ceremony's, say). */
  challenge?: string;
  /** The counter to report (a cloned authenticator's stale one, say); else the next one. */
  counter?: number;
  /** The user was verified (PIN, biometric). Default true. */
  userVerified?: boolean;
}

interface RegistrationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}
interface AuthenticationOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export class SoftwareAuthenticator {
  readonly credentials: SoftwareCredential[] = [];

  constructor(
    readonly origin: string,
    readonly rpId: string,
  ) {}

  private authData(rpId: string, flags: number, counter: number, attested?: SoftwareCredential): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    const parts: Uint8Array[] = [sha256(rpId), Buffer.from([flags]), count];
    if (attested) {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(attested.id.length);
      parts.push(Buffer.alloc(16), length, attested.id, attested.cosePublicKey);
    }
    return Buffer.concat(parts);
  }

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** navigator.credentials.create: a new ES256 credential, answered as RegistrationResponseJSON. */
  create(options: RegistrationOptions, overrides: CeremonyOverrides = {}) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const cosePublicKey = cborEncode(
      new Map<Cbor, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, "base64url")],
        [-3, Buffer.from(jwk.y!, "base64url")],
      ]),
    );
    const credential: SoftwareCredential = { id: randomBytes(16), privateKey, cosePublicKey, userHandle: options.user.id, counter: overrides.counter ?? 0 };
    const flags = UP | (overrides.userVerified === false ? 0 : UV) | BE | BS | AT;
    const authData = this.authData(overrides.rpId ?? options.rp.id ?? this.rpId, flags, credential.counter, credential);
    const attestationObject = cborEncode(
      new Map<Cbor, Cbor>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    this.credentials.push(credential);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(this.clientData("webauthn.create", overrides.challenge ?? options.challenge, overrides.origin ?? this.origin)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get: an assertion by `credential` (default: the newest allowed one), as AuthenticationResponseJSON. */
  get(options: AuthenticationOptions, overrides: CeremonyOverrides & { credential?: SoftwareCredential } = {}) {
    const allowed = options.allowCredentials?.map((c) => c.id);
    const credential = overrides.credential ?? [...this.credentials].reverse().find((c) => !allowed?.length || allowed.includes(b64url(c.id)));
    if (!credential) throw new Error("software authenticator: no credential for these options");
    credential.counter = overrides.counter ?? credential.counter + 1;
    const flags = UP | (overrides.userVerified === false ? 0 : UV) | BE | BS;
    const authenticatorData = this.authData(overrides.rpId ?? options.rpId ?? this.rpId, flags, credential.counter);
    const clientDataJSON = this.clientData("webauthn.get", overrides.challenge ?? options.challenge, overrides.origin ?? this.origin);
    const signature = sign("sha256", Buffer.concat([authenticatorData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
    };
  }
}
