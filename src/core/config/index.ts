// Server configuration: `mcpTasks.servers` and each folder's `.vscode/mcp.json`.
export * from './types';
export { parseMcpJson, parseSettingServers, combineConfigs, keepLastReadable } from './parse';
export { resolveServer } from './resolve';
export type { ResolveContext, ResolveResult } from './resolve';
export { parseDotenv } from './dotenv';
export { fingerprint } from './fingerprint';
export { MCP_JSON_TEMPLATE } from './template';
