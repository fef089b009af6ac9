"""First-party packs, shipped as package data (hippo_git._packs). Packs hold no code."""
