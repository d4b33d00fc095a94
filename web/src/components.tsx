/** The form pieces every screen uses: labelled fields with their error, the form's alert, pending buttons. */
import { type InputHTMLAttributes, type ReactNode, useEffect, useId, useRef, useState } from "react";
import { ApiError, errorMessage, onRateLimited } from "./api";
import { useLanguage, useT } from "./i18n";

/** The field an API error names, from its catalogue code (the rest go to the top of the form). */
const FIELD_OF_CODE: Record<string, string> = {
  INVALID_EMAIL: "email",
  USER_ALREADY_EXISTS: "email",
  EMAIL_IS_THE_SAME: "newEmail",
  PASSWORD_TOO_SHORT: "password",
  PASSWORD_TOO_LONG: "password",
  INVALID_PASSWORD: "currentPassword",
  USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER: "username",
  YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE: "role",
};

/** Splits an error into the field it names (when the form has that field) and the form-level message. */
export function placeError(error: unknown, fields: string[], aliases: Record<string, string> = {}): { field?: string; message: string } {
  const message = errorMessage(error);
  if (error instanceof ApiError) {
    const named = FIELD_OF_CODE[error.code];
    const field = named ? (aliases[named] ?? named) : undefined;
    if (field && fields.includes(field)) return { field, message };
  }
  return { message };
}

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  name: string;
  error?: string;
  hint?: ReactNode;
}

export function Field({ label, name, error, hint, ...input }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} aria-invalid={error ? true : undefined} aria-describedby={[hintId, errorId].filter(Boolean).join(" ") || undefined} {...input} />
      {hint && (
        <div id={hintId} className="hint">
          {hint}
        </div>
      )}
      {error && (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * The form-level message: announced when it appears, and focused so keyboard users land on it. `cause` is
 * what raised it (the error, a local check's refusal): a new cause with the same words is announced again.
 */
export function FormAlert({ message, tone = "error", cause }: { message?: string; tone?: "error" | "success"; cause?: unknown }) {
  const ref = useRef<HTMLDivElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new cause is the trigger, even with the same words.
  useEffect(() => {
    if (message) ref.current?.focus();
  }, [message, cause]);
  if (!message) return null;
  return (
    <div ref={ref} tabIndex={-1} className={`alert alert-${tone}`} role={tone === "error" ? "alert" : "status"}>
      {message}
    </div>
  );
}

/**
 * The form's submit button: waits while its request runs, and after a rate-limit refusal (429) until the
 * wait is over, counting down. The refusal is this button's when it came while the button was pending (its
 * form's request); a form's own code needs to do nothing for it.
 */
export function SubmitButton({ pending, children, pendingText, className }: { pending: boolean; children: ReactNode; pendingText: string; className?: string }) {
  const t = useT();
  const waitingForAnswer = useRef(pending);
  waitingForAnswer.current = pending;
  const [limitedUntil, setLimitedUntil] = useState<number>();
  useEffect(
    () =>
      onRateLimited((until) => {
        if (waitingForAnswer.current) setLimitedUntil(until);
      }),
    [],
  );
  const secondsLeft = useSecondsLeft(limitedUntil);
  const waiting = secondsLeft > 0;
  return (
    <button type="submit" className={className ?? "primary"} disabled={pending || waiting} aria-busy={pending || undefined}>
      {pending ? pendingText : waiting ? t("common.tryAgainIn", { seconds: secondsLeft }) : children}
    </button>
  );
}

/** Whole seconds until `until` (epoch ms), ticking down to 0; 0 when there is nothing to wait for. */
function useSecondsLeft(until: number | undefined): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (until === undefined) return;
    setNow(Date.now());
    const timer = setInterval(() => {
      const at = Date.now();
      setNow(at);
      if (at >= until) clearInterval(timer);
    }, 250);
    return () => clearInterval(timer);
  }, [until]);
  return until === undefined ? 0 : Math.max(0, Math.ceil((until - now) / 1000));
}

/**
 * The refusal to show of several actions that share one alert: the newest action's, if it failed (a
 * mutation by when it was started, a failing query by when it failed). A later success hides an older failure.
 */
export function newestError(...results: Array<{ error: unknown; submittedAt?: number; errorUpdatedAt?: number }>): unknown {
  const at = (result: (typeof results)[number]) => result.submittedAt ?? (result.error ? (result.errorUpdatedAt ?? 0) : 0);
  const newest = results.reduce<(typeof results)[number] | undefined>((best, result) => (best === undefined || at(result) > at(best) ? result : best), undefined);
  return newest?.error ?? undefined;
}

/** Sets the document title and moves focus to the page heading on navigation (screen readers hear the new page). */
export function Page({ title, children, narrow = true }: { title: string; children: ReactNode; narrow?: boolean }) {
  const t = useT();
  const language = useLanguage();
  const ref = useRef<HTMLHeadingElement>(null);
  const shown = useRef({ title, language });
  const documentTitle = t("common.pageTitle", { title });
  useEffect(() => {
    document.title = documentTitle;
  }, [documentTitle]);
  useEffect(() => {
    const before = shown.current;
    shown.current = { title, language };
    // A new language renames the page, but the reader stays where they are (at the language picker).
    if (before.language !== language) return;
    ref.current?.focus();
  }, [title, language]);
  return (
    <section className={narrow ? "page narrow" : "page"} aria-labelledby="page-title">
      <h1 id="page-title" ref={ref} tabIndex={-1}>
        {title}
      </h1>
      {children}
    </section>
  );
}

/**
 * A destructive or privileged action that asks first: the button opens a modal dialog naming what will
 * happen; only its confirm button acts. While the action runs both buttons wait; a refusal shows inside the
 * dialog (the newest one replaces the last) and the dialog stays open.
 */
export function ConfirmButton({
  children,
  title,
  description,
  confirmLabel,
  pendingText,
  onConfirm,
  danger = true,
  disabled,
  className,
  typed,
}: {
  children: ReactNode;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  pendingText: string;
  onConfirm: () => Promise<unknown>;
  danger?: boolean;
  disabled?: boolean;
  className?: string;
  /** The text the reader must type before confirming (an organization's name before deleting it), and its field's label. */
  typed?: { label: string; value: string };
}) {
  const t = useT();
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();
  const [typedText, setTypedText] = useState("");
  const close = () => {
    setError(undefined);
    setTypedText("");
    dialog.current?.close();
  };
  const confirm = async () => {
    setPending(true);
    setError(undefined);
    try {
      await onConfirm();
      dialog.current?.close();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPending(false);
    }
  };
  return (
    <>
      <button type="button" className={className ?? (danger ? "danger" : undefined)} disabled={disabled} onClick={() => dialog.current?.showModal()}>
        {children}
      </button>
      <dialog ref={dialog} className="confirm" aria-labelledby={titleId} onClose={() => setError(undefined)}>
        <h2 id={titleId}>{title}</h2>
        <div>{description}</div>
        {typed && <Field label={typed.label} name="confirmTyped" autoComplete="off" value={typedText} onChange={(e) => setTypedText(e.target.value)} />}
        <FormAlert message={error} />
        <div className="actions">
          <button type="button" onClick={close} disabled={pending}>
            {t("common.cancel")}
          </button>
          <button
            type="button"
            className={danger ? "danger" : "primary"}
            onClick={confirm}
            disabled={pending || (typed !== undefined && typedText.trim() !== typed.value)}
            aria-busy={pending || undefined}
          >
            {pending ? pendingText : confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

/** What an action did, and how to take it back where the platform allows (a ban is lifted, a role restored). */
export interface Done {
  message: string;
  undo?: { label: string; run: () => Promise<unknown>; undoneMessage: string };
}

/** Announces what happened after an action, with its undo button; a failed undo says why. */
export function DoneNotice({ done, onClear }: { done?: Done; onClear: () => void }) {
  const t = useT();
  const [pending, setPending] = useState(false);
  // The undo's outcome belongs to the notice it was pressed on; a newer notice replaces it.
  const [undone, setOutcome] = useState<{ of: Done; message: string; tone: "error" | "success" }>();
  const outcome = undone && undone.of === done ? undone : undefined;
  if (outcome) return <FormAlert message={outcome.message} tone={outcome.tone} />;
  if (!done) return null;
  const undo = done.undo;
  const runUndo = async () => {
    if (!undo || !done) return;
    setPending(true);
    try {
      await undo.run();
      setOutcome({ of: done, message: undo.undoneMessage, tone: "success" });
    } catch (caught) {
      setOutcome({ of: done, message: errorMessage(caught), tone: "error" });
    } finally {
      setPending(false);
    }
  };
  return (
    <div className="alert alert-success done-notice" role="status">
      <span>{done.message}</span>
      {undo && (
        <button type="button" className="link" onClick={runUndo} disabled={pending} aria-busy={pending || undefined}>
          {undo.label}
        </button>
      )}
      <button type="button" className="link" onClick={onClear}>
        {t("common.dismiss")}
      </button>
    </div>
  );
}
