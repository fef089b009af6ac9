"""Agent integration: install/uninstall/status per harness, the hook handlers, the MCP server."""
