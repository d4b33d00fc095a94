/**
 * Two-factor screens: the sign-in challenge (/two-factor) and the account section
 * (set up with a QR code, backup codes shown once with copy and download, trusted devices, disable).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { type FormEvent, useEffect, useState } from "react";
import { api, errorMessage, type SecondFactorMethod, type SessionWithUser } from "../api";
import { Field, FormAlert, Page, SubmitButton } from "../components";
import { safeRedirect } from "../safe-redirect";
import { sessionQuery } from "../session";
import { describeUserAgent } from "../user-agent";

const METHOD_LABELS: Record<SecondFactorMethod, string> = {
  totp: "Authenticator app",
  otp: "Code by email",
  "backup-code": "Backup code",
};

export function TwoFactorChallenge() {
  const search = useSearch({ strict: false }) as { redirect?: string; methods?: string };
  const offered = (search.methods ?? "totp,otp").split(",").filter((m): m is SecondFactorMethod => m === "totp" || m === "otp");
  const methods: SecondFactorMethod[] = [...offered, "backup-code"];
  const [method, setMethod] = useState<SecondFactorMethod>(methods[0]!);
  const [code, setCode] = useState("");
  const [trustDevice, setTrustDevice] = useState(false);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const sendOtp = useMutation({ mutationFn: api.twoFactor.sendOtp });
  const verify = useMutation({
    mutationFn: () => api.twoFactor.verify(method, { code: code.trim(), trustDevice }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
      await navigate({ to: safeRedirect(search.redirect) });
    },
  });
  const choose = (next: SecondFactorMethod) => {
    setMethod(next);
    setCode("");
    verify.reset();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate();
  };
  const failure = verify.error ?? sendOtp.error;
  return (
    <Page title="Two-factor authentication">
      <fieldset className="choices">
        <legend>Confirm it is you with</legend>
        {methods.map((m) => (
          <div className="check" key={m}>
            <input type="radio" id={`method-${m}`} name="method" checked={method === m} onChange={() => choose(m)} />
            <label htmlFor={`method-${m}`}>{METHOD_LABELS[m]}</label>
          </div>
        ))}
      </fieldset>
      <form onSubmit={submit} noValidate>
        <FormAlert message={failure ? errorMessage(failure) : undefined} />
        {method === "otp" && (
          <div className="row">
            {sendOtp.isSuccess && <FormAlert tone="success" message="We sent a code to your email address. It is valid for 5 minutes." />}
            <button type="button" onClick={() => sendOtp.mutate()} disabled={sendOtp.isPending} aria-busy={sendOtp.isPending || undefined}>
              {sendOtp.isPending ? "Sending…" : sendOtp.isSuccess ? "Send another code" : "Email me a code"}
            </button>
          </div>
        )}
        <Field
          label={method === "backup-code" ? "Backup code" : method === "otp" ? "Code from the email" : "Code from your authenticator app"}
          name="code"
          autoComplete="one-time-code"
          inputMode={method === "backup-code" ? "text" : "numeric"}
          required
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <div className="check">
          <input id="trust-device" type="checkbox" checked={trustDevice} onChange={(e) => setTrustDevice(e.target.checked)} />
          <label htmlFor="trust-device">Trust this device for 30 days</label>
        </div>
        <SubmitButton pending={verify.isPending} pendingText="Checking…">
          Verify
        </SubmitButton>
      </form>
    </Page>
  );
}

/** Backup codes, shown once: a list to read, a copy button and a text file to keep. */
function BackupCodes({ codes }: { codes: string[] }) {
  const [copied, setCopied] = useState(false);
  const text = `${codes.join("\n")}\n`;
  const download = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  useEffect(() => () => URL.revokeObjectURL(download), [download]);
  return (
    <div className="backup-codes">
      <p>Keep these backup codes somewhere safe. Each works once, when you cannot use your authenticator app. They are not shown again.</p>
      <ul aria-label="Backup codes" className="codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="row">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard.writeText(text).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          Copy codes
        </button>
        <a className="button" href={download} download="backup-codes.txt">
          Download codes
        </a>
      </div>
      {copied && <p role="status">Copied to the clipboard.</p>}
    </div>
  );
}

/** The account page's section. */
/** Setting it up asks for the password: someone without one (a provider's account only) sets one first. */
export function TwoFactorSection({ current, hasPassword }: { current: SessionWithUser; hasPassword?: boolean }) {
  const enabled = current.user.twoFactorEnabled === true;
  return (
    <section className="card" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor authentication</h2>
      {enabled ? <TwoFactorEnabled /> : hasPassword === false ? <p>Two-factor authentication asks for your password: set a password first.</p> : <TwoFactorSetup />}
    </section>
  );
}

function TwoFactorSetup() {
  const queryClient = useQueryClient();
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [qr, setQr] = useState<string>();
  const enable = useMutation({ mutationFn: () => api.twoFactor.enable(password) });
  const confirm = useMutation({
    mutationFn: () => api.twoFactor.verify("totp", { code: code.trim() }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey }),
  });
  useEffect(() => {
    // The QR code library is loaded only here, when someone sets up an authenticator (its own chunk).
    if (enable.data) void import("qrcode").then(({ default: QRCode }) => QRCode.toDataURL(enable.data.totpURI, { margin: 1, width: 200 })).then(setQr);
  }, [enable.data]);
  if (!enable.data) {
    return (
      <form
        onSubmit={(event) => {
          event.preventDefault();
          enable.mutate();
        }}
        noValidate
      >
        <p>Two-factor authentication asks for a code from an authenticator app (or from your email) when you sign in.</p>
        <FormAlert message={enable.error ? errorMessage(enable.error) : undefined} />
        <Field label="Password" name="twoFactorPassword" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        <SubmitButton pending={enable.isPending} pendingText="Setting up…">
          Set up two-factor authentication
        </SubmitButton>
      </form>
    );
  }
  const secret = new URL(enable.data.totpURI).searchParams.get("secret") ?? "";
  return (
    <div>
      <p>Scan this QR code with your authenticator app, or enter the key by hand.</p>
      {qr && <img src={qr} width={200} height={200} alt="QR code of your authenticator key" />}
      <p>
        Key: <code data-testid="totp-secret">{secret}</code>
      </p>
      <BackupCodes codes={enable.data.backupCodes} />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          confirm.mutate();
        }}
        noValidate
      >
        <FormAlert message={confirm.error ? errorMessage(confirm.error) : undefined} />
        <Field
          label="Code from your authenticator app"
          name="totpCode"
          autoComplete="one-time-code"
          inputMode="numeric"
          required
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <SubmitButton pending={confirm.isPending} pendingText="Checking…">
          Turn on two-factor authentication
        </SubmitButton>
      </form>
    </div>
  );
}

function TwoFactorEnabled() {
  const queryClient = useQueryClient();
  const [password, setPassword] = useState("");
  const devices = useQuery({ queryKey: ["trusted-devices"], queryFn: api.twoFactor.listTrustedDevices });
  const regenerate = useMutation({ mutationFn: () => api.twoFactor.generateBackupCodes(password) });
  const disable = useMutation({
    mutationFn: () => api.twoFactor.disable(password),
    onSuccess: () => queryClient.invalidateQueries(),
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.twoFactor.revokeTrustedDevice(id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["trusted-devices"] }),
  });
  const failure = regenerate.error ?? disable.error ?? revoke.error ?? devices.error;
  return (
    <div>
      <p role="status">Two-factor authentication is on.</p>
      <FormAlert message={failure ? errorMessage(failure) : undefined} />
      {regenerate.data && <BackupCodes codes={regenerate.data.backupCodes} />}
      <h3>Trusted devices</h3>
      {devices.data && devices.data.devices.length === 0 && <p>No trusted devices.</p>}
      <ul className="list" aria-label="Trusted devices">
        {devices.data?.devices.map((device) => (
          <li key={device.id}>
            <span>
              <strong>{describeUserAgent(device.userAgent)}</strong>
              <br />
              <span className="muted">
                {device.ipAddress ?? "Unknown IP address"} · trusted until <time dateTime={device.expiresAt}>{new Date(device.expiresAt).toLocaleDateString()}</time>
              </span>
            </span>
            <button
              type="button"
              onClick={() => revoke.mutate(device.id)}
              disabled={revoke.isPending}
              aria-label={`Stop trusting ${describeUserAgent(device.userAgent)} (${device.ipAddress ?? "unknown IP"})`}
            >
              Stop trusting
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={(event) => event.preventDefault()} noValidate>
        <Field
          label="Password"
          name="twoFactorPassword"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          hint="Needed for new backup codes and to turn two-factor off."
        />
        <div className="row">
          <button type="button" onClick={() => regenerate.mutate()} disabled={regenerate.isPending || disable.isPending} aria-busy={regenerate.isPending || undefined}>
            {regenerate.isPending ? "Generating…" : "New backup codes"}
          </button>
          <button type="button" className="danger" onClick={() => disable.mutate()} disabled={regenerate.isPending || disable.isPending} aria-busy={disable.isPending || undefined}>
            {disable.isPending ? "Turning off…" : "Turn off two-factor authentication"}
          </button>
        </div>
      </form>
    </div>
  );
}
