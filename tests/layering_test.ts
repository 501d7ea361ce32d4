/**
 * The services depend on one another in one direction only: a service's modules may import
 * another service's modules (its typed client, its schemas) only where the reverse never holds,
 * directly or around a circle; no service or shared module imports `infra/` (the all-in-one
 * wiring, deployment and bench tools sit on top); and `shared/` imports no service.
 * Read from the source: every static `import`/`export ... from` and literal `import()`.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\b[^'"`;]*?\bfrom\s*["']([^"']+)["']|(?:^|[\s;])import\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)/gm;

interface Import {
  from: string;
  to: string;
}

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      if (["node_modules", "dist"].includes(entry.name)) continue;
      yield* sourceFiles(path);
    } else if (/\.(ts|tsx)$/.test(entry.name) && !/_test\.tsx?$/.test(entry.name)) {
      yield path;
    }
  }
}

/** Every relative import of the product's modules under services/ and shared/. */
async function productImports(): Promise<Import[]> {
  const imports: Import[] = [];
  for (const top of ["services", "shared"]) {
    for await (const file of sourceFiles(join(ROOT, top))) {
      const text = (await Deno.readTextFile(file)).replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, "");
      for (const match of text.matchAll(SPECIFIER)) {
        const specifier = match[1] ?? match[2] ?? match[3];
        if (!specifier.startsWith(".")) continue;
        imports.push({
          from: relative(ROOT, file),
          to: relative(ROOT, resolve(dirname(file), specifier)),
        });
      }
    }
  }
  return imports;
}

/** The service a repository path belongs to, or null outside services/. */
function serviceOf(path: string): string | null {
  const match = /^services\/([^/]+)\//.exec(path);
  return match ? match[1] : null;
}

/** The service graph: caller → callees, each edge with one import that makes it. */
function serviceGraph(imports: Import[]): Map<string, Map<string, Import>> {
  const graph = new Map<string, Map<string, Import>>();
  for (const edge of imports) {
    const from = serviceOf(edge.from);
    const to = serviceOf(edge.to);
    if (!from || !to || from === to) continue;
    if (!graph.has(from)) graph.set(from, new Map());
    if (!graph.get(from)!.has(to)) graph.get(from)!.set(to, edge);
  }
  return graph;
}

/** A cycle of the graph as a list of services (first = last), or null when it has none. */
function findCycle(graph: Map<string, Map<string, unknown>>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (state.get(next) === "open") return [...path.slice(path.indexOf(next)), next];
      if (!state.has(next)) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    path.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of graph.keys()) {
    if (!state.has(node)) {
      const cycle = visit(node);
      if (cycle) return cycle;
    }
  }
  return null;
}

Deno.test("the import reader finds static, re-exported and dynamic imports", () => {
  const text = `import { a } from "./a.ts";\nimport type {\n  B,\n} from "../b/b.ts";\n` +
    `export { c } from "./c.ts";\nimport "./side.ts";\nconst d = await import("./d.ts");\n` +
    `const s = "import x from './not_code.ts'";`;
  const found = [...text.matchAll(SPECIFIER)].map((m) => m[1] ?? m[2] ?? m[3]);
  assert.deepEqual(found, ["./a.ts", "../b/b.ts", "./c.ts", "./side.ts", "./d.ts"]);
});

Deno.test("a cycle among services is found, however long", () => {
  const graph = (edges: [string, string][]) => {
    const g = new Map<string, Map<string, true>>();
    for (const [a, b] of edges) {
      if (!g.has(a)) g.set(a, new Map());
      g.get(a)!.set(b, true);
    }
    return g;
  };
  assert.deepEqual(findCycle(graph([["a", "b"], ["b", "a"]])), ["a", "b", "a"]);
  assert.deepEqual(findCycle(graph([["a", "b"], ["b", "c"], ["c", "a"]])), ["a", "b", "c", "a"]);
  assert.equal(findCycle(graph([["a", "b"], ["b", "c"], ["a", "c"]])), null);
});

Deno.test("no two services import each other's code, directly or around a circle", async () => {
  const graph = serviceGraph(await productImports());
  assert.ok(graph.size > 5, "the reader finds the services' imports of one another");
  const cycle = findCycle(graph);
  const because = cycle?.slice(1).map((to, i) => {
    const edge = graph.get(cycle[i])!.get(to)!;
    return `${edge.from} imports ${edge.to}`;
  });
  assert.equal(
    cycle,
    null,
    cycle ? `services import around a circle ${cycle.join(" → ")}: ${because!.join("; ")}` : "",
  );
});

Deno.test("no service or shared module imports infra/, and shared/ imports no service", async () => {
  const upward = (await productImports()).filter((edge) =>
    edge.to.startsWith("infra/") || (edge.from.startsWith("shared/") && serviceOf(edge.to))
  );
  assert.deepEqual(upward.map((e) => `${e.from} imports ${e.to}`), []);
});
