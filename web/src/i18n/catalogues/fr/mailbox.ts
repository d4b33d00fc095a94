import type { Catalogue } from "../en";

export default {
  title: "Boîte de réception de développement",
  intro:
    "Les e-mails envoyés par la plateforme lorsqu'elle fonctionne avec la boîte d'envoi de développement (sans serveur de messagerie). Les plus récents en premier ; la liste se met à jour toutes les quelques secondes.",
  unavailable: "La boîte de réception de développement n'est pas disponible : la plateforme envoie ses e-mails via un serveur de messagerie.",
  recipient: "Destinataire",
  filter: "Filtrer",
  empty: "Aucun e-mail pour l'instant.",
  emptyTo: "Aucun e-mail pour {to} pour l'instant.",
  to: "À {to}",
  links: "Liens dans « {subject} »",
} satisfies Catalogue["mailbox"];
