"""Widgets of the chat screen: step blocks, the savings panel, the prompt box."""
