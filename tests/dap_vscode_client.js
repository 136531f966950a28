// VS Code's own DAP test client (npm @vscode/debugadapter-testsupport,
// DebugClient) driving `dbg dap` as its debug adapter: launch, a breakpoint,
// the stop there, its variables, a continue to the end. Run by
// tests/test_dap_server.py with node; its settings come in the environment:
//   DBG_DAP_CLIENT_MODULES  the node_modules folder holding the client
//   DBG_DAP_ADAPTER         an executable that runs `dbg` with its arguments
//   DAP_PROGRAM, DAP_SOURCE (its source, default DAP_PROGRAM), DAP_BACKEND, DAP_LINE, DAP_VARIABLE, DAP_SESSION, DAP_ARGS (JSON)
// Exit 0 when every step held; otherwise the failure on stderr, exit 1.
'use strict';
const path = require('path');
const assert = require('assert');
const { DebugClient } = require(path.join(process.env.DBG_DAP_CLIENT_MODULES,
  '@vscode', 'debugadapter-testsupport'));

async function main() {
  const program = process.env.DAP_PROGRAM;
  const source = process.env.DAP_SOURCE || program;
  const line = Number(process.env.DAP_LINE);
  const client = new DebugClient(process.env.DBG_DAP_ADAPTER, 'dap', 'dbg',
    { env: process.env });
  client.defaultTimeout = 90000;
  await client.start();
  try {
    const launchArgs = { program, backend: process.env.DAP_BACKEND,
      session: process.env.DAP_SESSION, args: JSON.parse(process.env.DAP_ARGS || '[]') };
    const [, , stack] = await client.hitBreakpoint(launchArgs, { path: source, line });
    const frame = stack.body.stackFrames[0];
    assert.equal(frame.line, line, 'the stop is at the breakpoint');
    const scopes = await client.scopesRequest({ frameId: frame.id });
    const locals = await client.variablesRequest({
      variablesReference: scopes.body.scopes[0].variablesReference });
    const names = locals.body.variables.map((v) => v.name);
    assert.ok(names.includes(process.env.DAP_VARIABLE),
      `${process.env.DAP_VARIABLE} among the locals: ${names}`);
    const shown = locals.body.variables.find((v) => v.name === process.env.DAP_VARIABLE);
    const evaluated = await client.evaluateRequest({ expression: process.env.DAP_VARIABLE,
      frameId: frame.id, context: 'watch' });
    assert.equal(evaluated.body.result, shown.value, 'evaluate agrees with variables');
    let refused = null;
    try {
      await client.customRequest('dbgNoSuchRequest', {});
    } catch (err) {
      refused = err;
    }
    assert.ok(refused && /does not support/.test(refused.message), `refused: ${refused}`);
    await client.setBreakpointsRequest({ source: { path: source }, breakpoints: [] });
    await Promise.all([
      client.continueRequest({ threadId: 1 }),
      client.waitForEvent('terminated'),
    ]);
    console.log(JSON.stringify({ ok: true, variables: names, value: shown.value }));
  } finally {
    await client.stop();
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err && err.stack ? err.stack : String(err));
  process.exit(1);
});
