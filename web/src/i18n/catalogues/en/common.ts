/** Words many screens share. */
export default {
  language: "Language",
  cancel: "Cancel",
  dismiss: "Dismiss",
  unreachable: "The server could not be reached. Check your connection and try again.",
};
