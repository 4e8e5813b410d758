// Renders every example of every variant through the TypeScript client:
// openapi-fetch over the types openapi-typescript generated from the
// server's OpenAPI document (api.d.ts, written by .ci/clients). Each
// example goes through its variant's own operation with a body of the
// variant's generated input type, and must answer 200 with the prompt the
// server renders from the example as written. Exits 1 naming any that does
// not.
import createClient from "openapi-fetch";
import yaml from "js-yaml";
import type { components, paths } from "./api.js";

declare const process: { argv: string[]; exitCode: number };

type Input<V extends string> = components["schemas"][`${V}Input` & keyof components["schemas"]];
type Result = components["schemas"]["Result"];

const [url, token] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl: url, headers: { Authorization: `Bearer ${token}` } });

// Each variant's own operation, with its typed body: a variant the client
// was not generated for has none.
const renderers: Record<string, (body: unknown) => Promise<Result | undefined>> = {
  delegation: async (body) => (await client.POST("/v1/render/delegation", { body: body as Input<"delegation"> })).data,
  space: async (body) => (await client.POST("/v1/render/space", { body: body as Input<"space"> })).data,
  squad: async (body) => (await client.POST("/v1/render/squad", { body: body as Input<"squad"> })).data,
  swarm: async (body) => (await client.POST("/v1/render/swarm", { body: body as Input<"swarm"> })).data,
  workspace: async (body) => (await client.POST("/v1/render/workspace", { body: body as Input<"workspace"> })).data,
};

async function asWritten(variant: string, example: string): Promise<string> {
  const res = await fetch(`${url}/v1/render/${variant}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/yaml" },
    body: example,
  });
  if (res.status !== 200) throw new Error(`the render as written answered ${res.status}`);
  return ((await res.json()) as Result).text;
}

async function main(): Promise<void> {
  const { data: variants, response } = await client.GET("/v1/variants");
  if (!variants) throw new Error(`GET /v1/variants answered ${response.status}`);
  let n = 0;
  for (const v of variants) {
    const render = renderers[v.name];
    if (!render) throw new Error(`the generated client has no operation for variant ${v.name}: regenerate it`);
    for (const name of v.examples) {
      const ex = await client.GET("/v1/variants/{variant}/examples/{example}", {
        params: { path: { variant: v.name as paths["/v1/variants/{variant}/examples/{example}"]["get"]["parameters"]["path"]["variant"], example: name } },
        parseAs: "text",
      });
      if (ex.data === undefined) throw new Error(`${v.name} example ${name}: fetching it answered ${ex.response.status}`);
      const result = await render(yaml.load(ex.data));
      if (!result) throw new Error(`${v.name} example ${name}: the typed render did not answer 200`);
      if (result.text !== (await asWritten(v.name, ex.data))) {
        throw new Error(`${v.name} example ${name}: the typed render differs from the render of the example as written`);
      }
      n++;
    }
  }
  console.log(`client (TypeScript): rendered ${n} examples of ${variants.length} variants through their typed operations, each byte for byte as written`);
}

main().catch((err: unknown) => {
  console.error("client (TypeScript):", err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
