/**
 * Two-factor screens: the sign-in challenge (/two-factor) and the account section
 * (set up with a QR code, backup codes shown once with copy and download, trusted devices, disable).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { type FormEvent, useEffect, useState } from "react";
import { api, errorMessage, type SecondFactorMethod, type SessionWithUser } from "../api";
import { ConfirmButton, type Done, DoneNotice, Field, FormAlert, newestError, Page, SubmitButton } from "../components";
import { type MessageKey, useLanguage, useT } from "../i18n";
import { answerWithPasskey, passkeyFailureMessage, passkeysSupported } from "../passkeys";
import { safeRedirect } from "../safe-redirect";
import { sessionQuery } from "../session";
import { describeUserAgent } from "../user-agent";

const METHOD_LABELS: Record<SecondFactorMethod, MessageKey> = {
  totp: "twoFactor.methodTotp",
  otp: "twoFactor.methodOtp",
  "backup-code": "twoFactor.methodBackupCode",
};

const CODE_LABELS: Record<SecondFactorMethod, MessageKey> = {
  totp: "twoFactor.codeFromApp",
  otp: "twoFactor.codeFromEmail",
  "backup-code": "twoFactor.methodBackupCode",
};

/** A way to answer the challenge: a code of one of the methods, or a passkey of the user. */
type ChallengeAnswer = SecondFactorMethod | "passkey";

export function TwoFactorChallenge() {
  const t = useT();
  const search = useSearch({ strict: false }) as { redirect?: string; methods?: string };
  const listed = (search.methods ?? "totp,otp").split(",");
  const offered = listed.filter((m): m is SecondFactorMethod => m === "totp" || m === "otp");
  // A passkey first when the user has one and the browser can use it: the quickest answer.
  const withPasskey = listed.includes("passkey") && passkeysSupported();
  const methods: ChallengeAnswer[] = [...(withPasskey ? (["passkey"] as const) : []), ...offered, "backup-code"];
  const [method, setMethod] = useState<ChallengeAnswer>(methods[0]!);
  const [code, setCode] = useState("");
  const [trustDevice, setTrustDevice] = useState(false);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const sendOtp = useMutation({ mutationFn: api.twoFactor.sendOtp });
  const verify = useMutation({
    mutationFn: () => (method === "passkey" ? answerWithPasskey(trustDevice) : api.twoFactor.verify(method, { code: code.trim(), trustDevice })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
      await navigate({ to: safeRedirect(search.redirect) });
    },
  });
  const choose = (next: ChallengeAnswer) => {
    setMethod(next);
    setCode("");
    verify.reset();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate();
  };
  const failure = newestError(verify, sendOtp);
  const failureMessage = failure ? passkeyFailureMessage(failure) : undefined;
  return (
    <Page title={t("twoFactor.challengeTitle")}>
      <fieldset className="choices">
        <legend>{t("twoFactor.confirmWith")}</legend>
        {methods.map((m) => (
          <div className="check" key={m}>
            <input type="radio" id={`method-${m}`} name="method" checked={method === m} onChange={() => choose(m)} />
            <label htmlFor={`method-${m}`}>{m === "passkey" ? t("passkeys.useForTwoFactor") : t(METHOD_LABELS[m])}</label>
          </div>
        ))}
      </fieldset>
      <form onSubmit={submit} noValidate>
        <FormAlert message={failureMessage} cause={failure} />
        {method === "otp" && (
          <div className="row">
            {sendOtp.isSuccess && <FormAlert tone="success" message={t("twoFactor.codeSent")} />}
            <button type="button" onClick={() => sendOtp.mutate()} disabled={sendOtp.isPending} aria-busy={sendOtp.isPending || undefined}>
              {sendOtp.isPending ? t("twoFactor.sending") : sendOtp.isSuccess ? t("twoFactor.sendAnother") : t("twoFactor.sendCode")}
            </button>
          </div>
        )}
        {method === "passkey" ? (
          <p>{t("passkeys.twoFactorHint")}</p>
        ) : (
          <Field
            label={t(CODE_LABELS[method])}
            name="code"
            autoComplete="one-time-code"
            inputMode={method === "backup-code" ? "text" : "numeric"}
            required
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        )}
        <div className="check">
          <input id="trust-device" type="checkbox" checked={trustDevice} onChange={(e) => setTrustDevice(e.target.checked)} />
          <label htmlFor="trust-device">{t("twoFactor.trustDevice")}</label>
        </div>
        <SubmitButton pending={verify.isPending} pendingText={method === "passkey" ? t("passkeys.signingIn") : t("twoFactor.checking")}>
          {method === "passkey" ? t("passkeys.useForTwoFactor") : t("twoFactor.verify")}
        </SubmitButton>
      </form>
    </Page>
  );
}

/** Backup codes, shown once: a list to read, a copy button and a text file to keep. */
function BackupCodes({ codes }: { codes: string[] }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  const text = `${codes.join("\n")}\n`;
  const download = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  useEffect(() => () => URL.revokeObjectURL(download), [download]);
  return (
    <div className="backup-codes">
      <p>{t("twoFactor.backupIntro")}</p>
      <ul aria-label={t("twoFactor.backupCodes")} className="codes">
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
          {t("twoFactor.copyCodes")}
        </button>
        <a className="button" href={download} download="backup-codes.txt">
          {t("twoFactor.downloadCodes")}
        </a>
      </div>
      {copied && <p role="status">{t("twoFactor.copied")}</p>}
    </div>
  );
}

/** The account page's section. Setting it up asks for the password: someone without one (a provider's account only) sets one first. */
export function TwoFactorSection({ current, hasPassword }: { current: SessionWithUser; hasPassword?: boolean }) {
  const t = useT();
  const enabled = current.user.twoFactorEnabled === true;
  // Here, not in the part it reports on: turning two-factor off replaces that part with the setup form.
  const [done, setDone] = useState<Done>();
  return (
    <section className="card" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">{t("twoFactor.sectionTitle")}</h2>
      <DoneNotice done={done} onClear={() => setDone(undefined)} />
      {enabled ? <TwoFactorEnabled onDone={setDone} /> : hasPassword === false ? <p>{t("twoFactor.setPasswordFirst")}</p> : <TwoFactorSetup />}
    </section>
  );
}

function TwoFactorSetup() {
  const t = useT();
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
        <p>{t("twoFactor.setupIntro")}</p>
        <FormAlert message={enable.error ? errorMessage(enable.error) : undefined} cause={enable.error} />
        <Field
          label={t("twoFactor.password")}
          name="twoFactorPassword"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <SubmitButton pending={enable.isPending} pendingText={t("twoFactor.settingUp")}>
          {t("twoFactor.setUp")}
        </SubmitButton>
      </form>
    );
  }
  const secret = new URL(enable.data.totpURI).searchParams.get("secret") ?? "";
  return (
    <div>
      <p>{t("twoFactor.scan")}</p>
      {qr && <img src={qr} width={200} height={200} alt={t("twoFactor.qrAlt")} />}
      <p>
        {t("twoFactor.key")} <code data-testid="totp-secret">{secret}</code>
      </p>
      <BackupCodes codes={enable.data.backupCodes} />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          confirm.mutate();
        }}
        noValidate
      >
        <FormAlert message={confirm.error ? errorMessage(confirm.error) : undefined} cause={confirm.error} />
        <Field
          label={t("twoFactor.codeFromApp")}
          name="totpCode"
          autoComplete="one-time-code"
          inputMode="numeric"
          required
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <SubmitButton pending={confirm.isPending} pendingText={t("twoFactor.checking")}>
          {t("twoFactor.turnOn")}
        </SubmitButton>
      </form>
    </div>
  );
}

/** A password field inside a confirmation dialog: the action it confirms needs the password. */
function PasswordInDialog({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const t = useT();
  return (
    <Field
      label={t("twoFactor.password")}
      name="twoFactorPassword"
      type="password"
      autoComplete="current-password"
      required
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/**
 * Two-factor on: trusted devices, new backup codes, turning it off. Each asks first; new codes and turning off
 * ask for the password in their dialog. None can be undone from here: turning it on again takes a new key.
 */
function TwoFactorEnabled({ onDone }: { onDone: (done: Done) => void }) {
  const t = useT();
  const language = useLanguage();
  const queryClient = useQueryClient();
  const [codesPassword, setCodesPassword] = useState("");
  const [offPassword, setOffPassword] = useState("");
  const [newCodes, setNewCodes] = useState<string[]>();
  const devices = useQuery({ queryKey: ["trusted-devices"], queryFn: api.twoFactor.listTrustedDevices });
  const regenerate = async () => {
    const answer = await api.twoFactor.generateBackupCodes(codesPassword);
    setCodesPassword("");
    setNewCodes(answer.backupCodes);
    onDone({ message: t("twoFactor.newCodesDone") });
  };
  const turnOff = async () => {
    await api.twoFactor.disable(offPassword);
    setOffPassword("");
    onDone({ message: t("twoFactor.turnedOff") });
    await queryClient.invalidateQueries();
  };
  const stopTrusting = async (id: string, name: string) => {
    await api.twoFactor.revokeTrustedDevice(id);
    onDone({ message: t("twoFactor.stoppedTrusting", { device: name }) });
    await queryClient.invalidateQueries({ queryKey: ["trusted-devices"] });
  };
  return (
    <div>
      <p role="status">{t("twoFactor.isOn")}</p>
      <FormAlert message={devices.error ? errorMessage(devices.error) : undefined} cause={devices.error} />
      {newCodes && <BackupCodes codes={newCodes} />}
      <h3>{t("twoFactor.trustedDevices")}</h3>
      {devices.data && devices.data.devices.length === 0 && <p>{t("twoFactor.noTrustedDevices")}</p>}
      <ul className="list" aria-label={t("twoFactor.trustedDevices")}>
        {devices.data?.devices.map((device) => {
          const name = describeUserAgent(device.userAgent);
          const where = device.ipAddress ?? t("twoFactor.unknownIp");
          return (
            <li key={device.id}>
              <span>
                <strong>{name}</strong>
                <br />
                <span className="muted">
                  {where} · {t("twoFactor.trustedUntil")} <time dateTime={device.expiresAt}>{new Date(device.expiresAt).toLocaleDateString(language)}</time>
                </span>
              </span>
              <ConfirmButton
                danger={false}
                title={t("twoFactor.stopTrustingTitle", { device: name })}
                description={<p>{t("twoFactor.stopTrustingDescription", { device: name, where })}</p>}
                confirmLabel={t("twoFactor.stopTrusting")}
                pendingText={t("twoFactor.stopping")}
                onConfirm={() => stopTrusting(device.id, name)}
              >
                {t("twoFactor.stopTrusting")}
                <span className="visually-hidden"> {t("twoFactor.deviceAt", { device: name, where })}</span>
              </ConfirmButton>
            </li>
          );
        })}
      </ul>
      <div className="row">
        <ConfirmButton
          danger={false}
          title={t("twoFactor.newCodesTitle")}
          description={
            <>
              <p>{t("twoFactor.newCodesDescription")}</p>
              <PasswordInDialog value={codesPassword} onChange={setCodesPassword} />
            </>
          }
          confirmLabel={t("twoFactor.newCodes")}
          pendingText={t("twoFactor.generating")}
          onConfirm={regenerate}
        >
          {t("twoFactor.newCodes")}
        </ConfirmButton>
        <ConfirmButton
          title={t("twoFactor.turnOffTitle")}
          description={
            <>
              <p>{t("twoFactor.turnOffDescription")}</p>
              <PasswordInDialog value={offPassword} onChange={setOffPassword} />
            </>
          }
          confirmLabel={t("twoFactor.turnOff")}
          pendingText={t("twoFactor.turningOff")}
          onConfirm={turnOff}
        >
          {t("twoFactor.turnOffButton")}
        </ConfirmButton>
      </div>
    </div>
  );
}
