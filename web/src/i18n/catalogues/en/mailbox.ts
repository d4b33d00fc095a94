/** The development mailbox (screens/mailbox.tsx). */
export default {
  title: "Development mailbox",
  intro: "Mail the platform sent while it runs with the development outbox (no mail server). Newest first; refreshed every few seconds.",
  unavailable: "The development mailbox is not available: the platform sends its mail through a mail server.",
  recipient: "Recipient",
  filter: "Filter",
  empty: "No mail yet.",
  emptyTo: "No mail to {to} yet.",
  to: "To {to}",
  links: 'Links in "{subject}"',
};
