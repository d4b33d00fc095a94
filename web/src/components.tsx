/** The form pieces every screen uses: labelled fields with their error, the form's alert, pending buttons. */
import { type InputHTMLAttributes, type ReactNode, useEffect, useId, useRef } from "react";
import { ApiError, errorMessage } from "./api";

/** The field an API error names, from its catalogue code (the rest go to the top of the form). */
const FIELD_OF_CODE: Record<string, string> = {
  INVALID_EMAIL: "email",
  USER_ALREADY_EXISTS: "email",
  EMAIL_IS_THE_SAME: "newEmail",
  PASSWORD_TOO_SHORT: "password",
  PASSWORD_TOO_LONG: "password",
  INVALID_PASSWORD: "currentPassword",
  USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER: "username",
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

/** The form-level message: announced when it appears, and focused so keyboard users land on it. */
export function FormAlert({ message, tone = "error" }: { message?: string; tone?: "error" | "success" }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (message) ref.current?.focus();
  }, [message]);
  if (!message) return null;
  return (
    <div ref={ref} tabIndex={-1} className={`alert alert-${tone}`} role={tone === "error" ? "alert" : "status"}>
      {message}
    </div>
  );
}

export function SubmitButton({ pending, children, pendingText, className }: { pending: boolean; children: ReactNode; pendingText: string; className?: string }) {
  return (
    <button type="submit" className={className ?? "primary"} disabled={pending} aria-busy={pending || undefined}>
      {pending ? pendingText : children}
    </button>
  );
}

/** Sets the document title and moves focus to the page heading on navigation (screen readers hear the new page). */
export function Page({ title, children, narrow = true }: { title: string; children: ReactNode; narrow?: boolean }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Auth Platform`;
    ref.current?.focus();
  }, [title]);
  return (
    <section className={narrow ? "page narrow" : "page"} aria-labelledby="page-title">
      <h1 id="page-title" ref={ref} tabIndex={-1}>
        {title}
      </h1>
      {children}
    </section>
  );
}
