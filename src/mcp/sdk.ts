/**
 * The parts of the MCP SDK `ledger mcp` uses, in one module: `npm run build` replaces its
 * compiled form (dist/src/mcp/sdk.js) with a single bundled file of the SDK and the zod it
 * uses (scripts/bundle-hot.js), because loading them as some 250 separate modules was most of
 * the server's start-up (issue 21). Under vitest, and if the bundle is missing, this file
 * re-exports the package as it is.
 */
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
