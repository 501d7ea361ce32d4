/**
 * The reference for bench:api: a bare Deno.serve answering the same JSON as the real route,
 * with the headers given (JSON) beside it, else only its content type.
 */
const body = Deno.args[0] ?? "{}";
const headers = Deno.args[1]
  ? JSON.parse(Deno.args[1]) as Record<string, string>
  : { "content-type": "application/json" };
const server = Deno.serve(
  { port: 0, hostname: "127.0.0.1", onListen: () => {} },
  () => new Response(body, { headers }),
);
console.log(JSON.stringify({ port: server.addr.port }));
