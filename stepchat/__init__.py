"""stepchat: a terminal chat client whose answers pass through a verified step-level cache."""

__version__ = "0.1.0"
