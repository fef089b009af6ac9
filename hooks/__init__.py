"""Hook shims and agent-hook snippets, shipped as package data (hippo_git._hooks)."""
