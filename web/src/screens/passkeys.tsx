/** The account page's passkeys: the list (name, when added, synced or on one device), add, rename, delete. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, errorMessage, type Passkey } from "../api";
import { ConfirmButton, type Done, DoneNotice, Field, FormAlert, SubmitButton } from "../components";
import { useLanguage, useT } from "../i18n";
import { addPasskey, passkeyFailureMessage, passkeysSupported } from "../passkeys";

export const passkeysQuery = { queryKey: ["passkeys"], queryFn: api.passkey.list };

export function PasskeysSection() {
  const t = useT();
  const queryClient = useQueryClient();
  const passkeys = useQuery(passkeysQuery);
  const [done, setDone] = useState<Done>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: passkeysQuery.queryKey });
  const add = useMutation({
    mutationFn: () => addPasskey(),
    onSuccess: async () => {
      setDone({ message: t("passkeys.added") });
      await refresh();
    },
  });
  const failure = add.error ?? passkeys.error;
  return (
    <section className="card" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">{t("passkeys.title")}</h2>
      <p>{t("passkeys.intro")}</p>
      <FormAlert message={failure ? passkeyFailureMessage(failure) : undefined} cause={failure} />
      <DoneNotice done={done} onClear={() => setDone(undefined)} />
      {passkeys.isPending && <p role="status">{t("account.loading")}</p>}
      {passkeys.data?.length === 0 && <p>{t("passkeys.none")}</p>}
      <ul className="list" aria-label={t("passkeys.title")}>
        {passkeys.data?.map((passkey) => (
          <PasskeyItem key={passkey.id} passkey={passkey} onDone={setDone} refresh={refresh} />
        ))}
      </ul>
      {passkeysSupported() ? (
        <button type="button" onClick={() => add.mutate()} disabled={add.isPending} aria-busy={add.isPending || undefined}>
          {add.isPending ? t("passkeys.adding") : t("passkeys.add")}
        </button>
      ) : (
        <p className="muted">{t("passkeys.unsupported")}</p>
      )}
    </section>
  );
}

function PasskeyItem({ passkey, onDone, refresh }: { passkey: Passkey; onDone: (done: Done) => void; refresh: () => Promise<unknown> }) {
  const t = useT();
  const language = useLanguage();
  const name = passkey.name ?? t("passkeys.unnamed");
  const [renaming, setRenaming] = useState(false);
  const [newName, setNewName] = useState(passkey.name ?? "");
  const rename = useMutation({
    mutationFn: () => api.passkey.rename(passkey.id, newName.trim()),
    onSuccess: async () => {
      setRenaming(false);
      onDone({ message: t("passkeys.renamed") });
      await refresh();
    },
  });
  const remove = async () => {
    await api.passkey.remove(passkey.id);
    onDone({ message: t("passkeys.deleted") });
    await refresh();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate();
  };
  const kind = [passkey.deviceType === "multiDevice" ? t("passkeys.synced") : t("passkeys.singleDevice"), ...(passkey.backedUp ? [t("passkeys.backedUp")] : [])].join(", ");
  return (
    <li>
      {renaming ? (
        <form onSubmit={submit} noValidate>
          <FormAlert message={rename.error ? errorMessage(rename.error) : undefined} cause={rename.error} />
          <Field label={t("passkeys.renameLabel", { name })} name="passkey-name" required maxLength={255} value={newName} onChange={(e) => setNewName(e.target.value)} />
          <div className="row">
            <SubmitButton pending={rename.isPending} pendingText={t("passkeys.saving")}>
              {t("passkeys.save")}
            </SubmitButton>
            <button type="button" onClick={() => setRenaming(false)}>
              {t("passkeys.cancel")}
            </button>
          </div>
        </form>
      ) : (
        <>
          <span>
            <strong>{name}</strong>
            <br />
            <span className="muted">
              {t("passkeys.createdOn", { date: new Date(passkey.createdAt).toLocaleDateString(language) })} · {kind}
            </span>
          </span>
          <span className="row">
            <button type="button" onClick={() => setRenaming(true)}>
              {t("passkeys.rename")}
              <span className="visually-hidden"> {name}</span>
            </button>
            <ConfirmButton
              title={t("passkeys.deleteTitle", { name })}
              description={<p>{t("passkeys.deleteDescription")}</p>}
              confirmLabel={t("passkeys.delete")}
              pendingText={t("passkeys.deleting")}
              onConfirm={remove}
            >
              {t("passkeys.delete")}
              <span className="visually-hidden"> {name}</span>
            </ConfirmButton>
          </span>
        </>
      )}
    </li>
  );
}
