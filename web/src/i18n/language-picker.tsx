/** The language picker of the account page: the choice is kept in this browser and applies at once. */
import { useId } from "react";
import { LANGUAGES, type Language, pickLanguage, useLanguage, useT } from ".";

export function LanguagePicker() {
  const t = useT();
  const language = useLanguage();
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{t("common.language")}</label>
      <select id={id} value={language} onChange={(event) => void pickLanguage(event.target.value as Language)}>
        {Object.entries(LANGUAGES).map(([code, name]) => (
          <option key={code} value={code} lang={code}>
            {name}
          </option>
        ))}
      </select>
    </div>
  );
}
