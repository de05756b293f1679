"""Sending issues to subscribers and honouring unsubscribes (optional: for publishers without an email service)."""
