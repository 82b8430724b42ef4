/**
 * The text of a new `.vscode/mcp.json` (or user mcp.json). It is valid as it stands (no servers) and every example
 * becomes valid JSONC when its `// ` prefixes are removed, so users can enable one by uncommenting.
 */
export const MCP_JSON_TEMPLATE = `// MCP servers, used by MCP Tasks and by VS Code itself.
// Format: https://code.visualstudio.com/docs/copilot/reference/mcp-configuration
// To enable an example, remove the "// " in front of its lines.
{
  "servers": {
    // A local server, started as a process that speaks MCP on stdin/stdout.
    // "everything": {
    //   "type": "stdio",
    //   "command": "npx",
    //   "args": ["-y", "@modelcontextprotocol/server-everything"],
    //   "env": { "LOG_LEVEL": "info" }
    // },
    // A remote server reached over Streamable HTTP; the token is asked for once, when it starts.
    // "remote": {
    //   "type": "http",
    //   "url": "https://example.com/mcp",
    //   "headers": { "Authorization": "Bearer \${input:api-token}" }
    // }
  },
  "inputs": [
    // Values asked of the user, used as "\${input:ID}" in the servers above.
    // { "type": "promptString", "id": "api-token", "description": "API token for example.com", "password": true }
  ]
}
`;
