"""hippo_git: a memory for AI coding agents that lives in the team's own git repository."""

__version__ = "0.1.0"
