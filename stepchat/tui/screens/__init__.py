"""Screens of the app: chat, cache inspector, and the modal dialogs."""
