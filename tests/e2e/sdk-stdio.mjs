// sdk-stdio.mjs - drive dbprint-serve with the official MCP TypeScript SDK
// client over stdio: connect (initialize), list tools, call a tool, call
// one with a bad argument, list prompts, close, and check that the server
// exited 0 on its own when its stdin closed.
//
//   node sdk-stdio.mjs SERVE PROJECT
//
// Prints one line per check, "PASS <what>" or "FAIL <what>: <detail>";
// tests/cli/t2120-serve-sdk.sh turns them into TAP.
import process from 'node:process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [serve, project] = process.argv.slice(2);
let failed = 0;
function check(what, cond, detail) {
  if (cond) console.log(`PASS ${what}`);
  else { failed++; console.log(`FAIL ${what}: ${detail ?? ''}`); }
}

const transport = new StdioClientTransport({
  command: serve, args: ['--project', project], stderr: 'pipe'
});
const client = new Client({ name: 'dbprint-e2e', version: '0.0.0' });
try {
  await client.connect(transport);
  const proc = transport._process;
  const info = client.getServerVersion();
  check('initialize: serverInfo names dbprint', info?.name === 'dbprint',
    JSON.stringify(info));
  const caps = client.getServerCapabilities();
  check('initialize: tools and resources capabilities, no prompts',
    caps?.tools?.listChanged === false && caps?.resources?.subscribe === false &&
    caps?.prompts === undefined, JSON.stringify(caps));
  const instr = client.getInstructions() ?? '';
  check('initialize: instructions under 2,048 characters',
    instr.length > 0 && instr.length < 2048, String(instr.length));

  const tools = await client.listTools();
  const names = tools.tools.map(t => t.name).join(' ');
  check('tools/list: the seven tools in spec order',
    names === 'get_table_context list_tables search_columns resolve_value get_manifest get_diff get_reference',
    names);
  check('tools/list: every tool has a title and read-only annotations',
    tools.tools.every(t => t.title && t.annotations?.readOnlyHint === true &&
      t.annotations?.openWorldHint === false), '');

  const r = await client.callTool({ name: 'list_tables', arguments: { detail: true } });
  let body = null;
  try { body = JSON.parse(r.content?.[0]?.text ?? ''); } catch (e) { body = null; }
  check('tools/call list_tables: a text result that parses, isError false',
    r.isError === false && body && Array.isArray(body.tables) && body.total === body.tables.length,
    JSON.stringify(r).slice(0, 300));
  check('tools/call: no structuredContent', r.structuredContent === undefined, '');

  const bad = await client.callTool({ name: 'list_tables', arguments: { schema: 'x' } });
  check('tools/call with an unknown argument: isError result, not a protocol error',
    bad.isError === true && /takes no argument 'schema'/.test(bad.content?.[0]?.text ?? ''),
    JSON.stringify(bad));

  const prompts = await client.listPrompts().catch(e => ({ error: String(e) }));
  check('prompts/list probed anyway: an empty list',
    Array.isArray(prompts.prompts) && prompts.prompts.length === 0, JSON.stringify(prompts));

  await client.ping();
  check('ping', true);

  const t0 = Date.now();
  await client.close();
  const waited = Date.now() - t0;
  check('close: the server exited 0 on EOF, without a signal',
    proc && proc.exitCode === 0 && proc.signalCode === null && waited < 2000,
    `exit ${proc?.exitCode} signal ${proc?.signalCode} after ${waited} ms`);
} catch (e) {
  check('the session ran', false, e?.stack ?? String(e));
}
process.exit(failed ? 1 : 0);
