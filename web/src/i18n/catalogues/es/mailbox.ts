import type { Catalogue } from "../en";

export default {
  title: "Buzón de desarrollo",
  intro:
    "Correos que la plataforma ha enviado mientras funciona con la bandeja de salida de desarrollo (sin servidor de correo). Los más recientes primero; se actualiza cada pocos segundos.",
  unavailable: "El buzón de desarrollo no está disponible: la plataforma envía su correo a través de un servidor de correo.",
  recipient: "Destinatario",
  filter: "Filtrar",
  empty: "Aún no hay correos.",
  emptyTo: "Aún no hay correos para {to}.",
  to: "Para {to}",
  links: "Enlaces de «{subject}»",
} satisfies Catalogue["mailbox"];
