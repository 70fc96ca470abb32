"""The text gate: may a cached answer to one open-text request serve another?"""
