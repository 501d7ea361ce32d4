/** The reference for bench:api: a bare Deno.serve answering the same JSON as the real route. */
const body = Deno.args[0] ?? "{}";
const server = Deno.serve(
  { port: 0, hostname: "127.0.0.1", onListen: () => {} },
  () => new Response(body, { headers: { "content-type": "application/json" } }),
);
console.log(JSON.stringify({ port: server.addr.port }));
