"""The worlds DEPS plays, declared once: its AgentSpec's ``envs`` and the runner's check."""

ENVS = ("craft", "crafter")
