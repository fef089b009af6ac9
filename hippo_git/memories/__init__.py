"""Quick memories: small Markdown notes under `notes_dir/memories/`, remembered and recalled.

A memory is a note, so it is shared, reviewed and reverted through git like any other; how
strong it is (recalls, outcomes, decay) is per person, in `$HIPPO_HOME/usage.sqlite`.
"""
