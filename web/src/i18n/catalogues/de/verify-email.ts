import type { Catalogue } from "../en";

export default {
  title: "E-Mail-Bestätigung",
  verifying: "Ihre E-Mail-Adresse wird bestätigt…",
  loading: "Wird geladen…",
  notYet: "Ihre E-Mail-Adresse ist noch nicht bestätigt. Öffnen Sie den Link, den wir Ihnen gesendet haben.",
  verified: "Ihre E-Mail-Adresse ist bestätigt.",
  checkNewTitle: "Prüfen Sie Ihre neue Adresse",
  checkNew: "Die Änderung ist bestätigt: Ihr Konto verwendet jetzt {email}. Wir haben dorthin einen Link gesendet: Öffnen Sie ihn, um Ihre neue Adresse zu bestätigen.",
  changedTitle: "E-Mail-Adresse geändert",
  changed: "Ihre E-Mail-Adresse ist geändert und bestätigt.",
  toAccount: "Zu Ihrem Konto",
  signIn: "Anmelden",
} satisfies Catalogue["verifyEmail"];
