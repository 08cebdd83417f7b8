// sdk-resources.mjs - read dbprint-serve's resources with the official MCP
// TypeScript SDK client over stdio: list every page of resources/list,
// list the templates, read a per-table file whole, read a long file page
// by page through ?page=&version= and rebuild it, and see a resource error
// arrive as a JSON-RPC error (code -32602).
//
//   node sdk-resources.mjs SERVE PROJECT LONG-URI LONG-FILE
//
// Prints one line per check, "PASS <what>" or "FAIL <what>: <detail>";
// tests/cli/t6600-resources-sdk.sh turns them into TAP.
import fs from 'node:fs';
import process from 'node:process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [serve, project, longUri, longFile] = process.argv.slice(2);
let failed = 0;
function check(what, cond, detail) {
  if (cond) console.log(`PASS ${what}`);
  else { failed++; console.log(`FAIL ${what}: ${detail ?? ''}`); }
}

const transport = new StdioClientTransport({
  command: serve, args: ['--project', project], stderr: 'pipe'
});
const client = new Client({ name: 'dbprint-e2e-resources', version: '0.0.0' });
try {
  await client.connect(transport);

  const uris = [];
  let cursor, pages = 0;
  do {
    const r = await client.listResources(cursor ? { cursor } : {});
    for (const e of r.resources) uris.push(e.uri);
    cursor = r.nextCursor;
    pages++;
  } while (cursor && pages < 100);
  check('resources/list: every page, the reference documents first',
    uris[0] === 'dbprint:///reference/spec' &&
    uris[1] === 'dbprint:///reference/assertions' &&
    new Set(uris).size === uris.length, `${pages} pages: ${uris.slice(0, 3)}`);
  check('resources/list: the long file is listed', uris.includes(longUri),
    longUri);

  const tpl = await client.listResourceTemplates();
  check('resources/templates/list: every template in page form',
    tpl.resourceTemplates.length === 11 &&
    tpl.resourceTemplates.every(t => t.uriTemplate.endsWith('{?page,version}')),
    JSON.stringify(tpl.resourceTemplates.map(t => t.uriTemplate)));

  const first = await client.readResource({ uri: longUri });
  const c0 = first.contents[0];
  const meta = c0._meta ?? {};
  check('resources/read: page 1 with _meta {page, pages, version}',
    meta.page === 1 && meta.pages >= 2 && /^[0-9a-f]{16}$/.test(meta.version),
    JSON.stringify(meta));
  let text = c0.text;
  for (let p = 2; p <= meta.pages; p++) {
    const r = await client.readResource({
      uri: `${longUri}?page=${p}&version=${meta.version}`
    });
    text += r.contents[0].text;
  }
  const want = fs.readFileSync(longFile, 'utf8');
  check('resources/read: the pages rebuild the file exactly',
    text === want, `${text.length} vs ${want.length} characters`);

  let err;
  try {
    await client.readResource({ uri: 'dbprint://nope/manifest' });
  } catch (e) {
    err = e;
  }
  check('resources/read: an unknown connection is a -32602 error',
    err && err.code === -32602 && /not in \.dbprint\.yaml/.test(err.message),
    String(err));

  await client.close();
} catch (e) {
  check('the session ran', false, e?.stack ?? String(e));
}
process.exit(failed ? 1 : 0);
