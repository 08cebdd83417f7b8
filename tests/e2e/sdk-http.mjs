// sdk-http.mjs - drive dbprint-serve --transport http with the official
// MCP TypeScript SDK client: the checks sdk-stdio.mjs runs over stdio, over
// StreamableHTTPClientTransport (initialize, session id, lists, calls, a
// bad argument, prompts, ping, DELETE of the session on close) and then
// over SSEClientTransport (the upstream GET /sse + POST /messages/ pair).
//
//   node sdk-http.mjs BASE_URL        e.g. http://127.0.0.1:PORT
//
// Prints one line per check, "PASS <what>" or "FAIL <what>: <detail>";
// tests/cli/t8130-http-sdk.sh turns them into TAP.
import process from 'node:process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';

const [base] = process.argv.slice(2);
let failed = 0;
function check(what, cond, detail) {
  if (cond) console.log(`PASS ${what}`);
  else { failed++; console.log(`FAIL ${what}: ${detail ?? ''}`); }
}

async function session(label, transport) {
  const client = new Client({ name: 'dbprint-e2e', version: '0.0.0' });
  await client.connect(transport);
  const info = client.getServerVersion();
  check(`${label}: initialize: serverInfo names dbprint`, info?.name === 'dbprint',
    JSON.stringify(info));
  const caps = client.getServerCapabilities();
  check(`${label}: initialize: tools and resources capabilities, no prompts`,
    caps?.tools?.listChanged === false && caps?.resources?.subscribe === false &&
    caps?.prompts === undefined, JSON.stringify(caps));
  const instr = client.getInstructions() ?? '';
  check(`${label}: initialize: instructions under 2,048 characters`,
    instr.length > 0 && instr.length < 2048, String(instr.length));

  const tools = await client.listTools();
  const names = tools.tools.map(t => t.name).join(' ');
  check(`${label}: tools/list: the seven tools in spec order`,
    names === 'get_table_context list_tables search_columns resolve_value get_manifest get_diff get_reference',
    names);
  check(`${label}: tools/list: every tool has a title and read-only annotations`,
    tools.tools.every(t => t.title && t.annotations?.readOnlyHint === true &&
      t.annotations?.openWorldHint === false), '');

  const r = await client.callTool({ name: 'list_tables', arguments: { detail: true } });
  let body = null;
  try { body = JSON.parse(r.content?.[0]?.text ?? ''); } catch (e) { body = null; }
  check(`${label}: tools/call list_tables: a text result that parses, isError false`,
    r.isError === false && body && Array.isArray(body.tables) && body.total === body.tables.length,
    JSON.stringify(r).slice(0, 300));
  check(`${label}: tools/call: no structuredContent`, r.structuredContent === undefined, '');

  const bad = await client.callTool({ name: 'list_tables', arguments: { schema: 'x' } });
  check(`${label}: tools/call with an unknown argument: isError result, not a protocol error`,
    bad.isError === true && /takes no argument 'schema'/.test(bad.content?.[0]?.text ?? ''),
    JSON.stringify(bad));

  const res = await client.listResources();
  check(`${label}: resources/list: dbprint:// resources`,
    res.resources.length > 0 && res.resources.every(x => x.uri.startsWith('dbprint://')),
    JSON.stringify(res).slice(0, 300));
  const rd = await client.readResource({ uri: 'dbprint://demo/manifest' });
  check(`${label}: resources/read of the manifest`,
    rd.contents?.length === 1 && (rd.contents[0].text ?? '').length > 0,
    JSON.stringify(rd).slice(0, 300));
  const miss = await client.readResource({ uri: 'dbprint://nope/manifest' })
    .then(() => null, e => e);
  check(`${label}: resources/read of an unserved connection: a -32602 error`,
    miss && miss.code === -32602, String(miss));

  // Several calls at once on one session.
  const many = await Promise.all([1, 2, 3, 4, 5, 6].map(() =>
    client.callTool({ name: 'get_table_context',
      arguments: { table: 'bookshop.store.book', purpose: 'query' } })));
  check(`${label}: six parallel calls all answered`,
    many.every(x => x.isError === false && (x.content?.[0]?.text ?? '').length > 0),
    JSON.stringify(many.map(x => x.isError)));

  const prompts = await client.listPrompts().catch(e => ({ error: String(e) }));
  check(`${label}: prompts/list probed anyway: an empty list`,
    Array.isArray(prompts.prompts) && prompts.prompts.length === 0, JSON.stringify(prompts));

  await client.ping();
  check(`${label}: ping`, true);
  return client;
}

try {
  const t = new StreamableHTTPClientTransport(new URL(`${base}/mcp`));
  const client = await session('streamable', t);
  const sid = t.sessionId;
  check('streamable: the session id is 32 hex digits', /^[0-9a-f]{32}$/.test(sid ?? ''), sid);
  await t.terminateSession();
  check('streamable: DELETE ends the session', t.sessionId === undefined, t.sessionId);
  const after = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
  });
  check('streamable: the ended session answers 404', after.status === 404, String(after.status));
  await client.close();
} catch (e) {
  check('the streamable HTTP session ran', false, e?.stack ?? String(e));
}

try {
  const t = new SSEClientTransport(new URL(`${base}/sse`));
  const client = await session('sse', t);
  await client.close();
} catch (e) {
  check('the HTTP+SSE session ran', false, e?.stack ?? String(e));
}
process.exit(failed ? 1 : 0);
