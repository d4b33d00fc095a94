/** Words many screens share. */
export default {
  language: "Language",
  cancel: "Cancel",
  dismiss: "Dismiss",
  unreachable: "The server could not be reached. Check your connection and try again.",
  tooManyRequestsWait: "Too many attempts. Wait {wait}, then try again.",
  tryAgainIn: "Try again in {seconds} s",
  suspended: "Your account is suspended.",
  suspendedUntil: "Your account is suspended until {date}.",
};
