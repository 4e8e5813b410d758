// Renders every example of every variant through the TypeScript client:
// openapi-fetch over the types openapi-typescript generated from the
// server's OpenAPI document (api.d.ts, written by .ci/clients). Each
// example is a constant of its variant's generated input type
// (examples.gen.ts, written by gen-examples.mjs), as written and with its
// defaulted fields left out, and goes through the variant's own
// operation: no cast anywhere, so tsc --strict checks that the generated
// types accept both. Each must answer 200 with the prompt the server
// renders from the example as written. Exits 1 naming any that does not.
// The ?format=anthropic and ?format=openai answers of the generated types
// go into the official SDKs' request types as they are, again no cast.
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";
import { delegation, space, squad, swarm, workspace, variants, type Example } from "./examples.gen.js";

declare const process: { argv: string[]; exitCode: number };

type Result = components["schemas"]["Result"];
// A render's 200 answer: a Result, or with ?format= a provider's request.
type Rendered = Result | components["schemas"]["AnthropicRequest"] | components["schemas"]["OpenAIRequest"];

// resultOf is the Result of a render's answer, narrowed by its fields
// (no cast): undefined for another status or form; anthropicOf and
// openaiOf the same for the providers' forms.
function resultOf(data: Rendered | undefined): Result | undefined {
  return data !== undefined && "text" in data ? data : undefined;
}
function anthropicOf(data: Rendered | undefined): components["schemas"]["AnthropicRequest"] | undefined {
  return data !== undefined && "system" in data ? data : undefined;
}
function openaiOf(data: Rendered | undefined): components["schemas"]["OpenAIRequest"] | undefined {
  return data !== undefined && "prompt_cache_key" in data ? data : undefined;
}

const [url, token] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl: url, headers: { Authorization: `Bearer ${token}` } });

// A hand-written input with every defaulted field left out: what a
// caller types, checked by tsc against the generated type.
const handWritten: components["schemas"]["delegationInput"] = {
  parent: { agent_id: "lead", prompt_key: "ops/lead@v1", prompt: "# Lead\n\nYou lead." },
  delegation: {
    reason: "The lead is busy.",
    expected_completion: "return the failing host's name",
    task_summary: "Find the failing host.",
    required_outputs: ["The host's name."],
  },
};

async function asWritten(variant: string, example: string): Promise<string> {
  const res = await fetch(`${url}/v1/render/${variant}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/yaml" },
    body: example,
  });
  if (res.status !== 200) throw new Error(`the render as written answered ${res.status}`);
  const body: Result = await res.json();
  return body.text;
}

// check renders each example of a variant, as written and bare, through
// render, and compares with the render of the example as written.
async function check<In>(variant: string, examples: Example<In>[], render: (body: In) => Promise<Result | undefined>): Promise<number> {
  let n = 0;
  for (const ex of examples) {
    const want = await asWritten(variant, ex.asWritten);
    const forms: { form: string; body: In }[] = [
      { form: "as written", body: ex.full },
      { form: "with its defaults left out", body: ex.bare },
    ];
    for (const { form, body } of forms) {
      const result = await render(body);
      if (!result) throw new Error(`${variant} example ${ex.name} ${form}: the typed render did not answer 200`);
      if (result.text !== want) throw new Error(`${variant} example ${ex.name} ${form}: the typed render differs from the render of the example as written`);
      n++;
    }
  }
  return n;
}

async function main(): Promise<void> {
  const handled = ["delegation", "space", "squad", "swarm", "workspace"];
  for (const v of variants) {
    if (!handled.includes(v)) throw new Error(`the client program has no operation for variant ${v}: add it`);
  }
  let n = 0;
  n += await check("delegation", delegation, async (body) => resultOf((await client.POST("/v1/render/delegation", { body })).data));
  n += await check("space", space, async (body) => resultOf((await client.POST("/v1/render/space", { body })).data));
  n += await check("squad", squad, async (body) => resultOf((await client.POST("/v1/render/squad", { body })).data));
  n += await check("swarm", swarm, async (body) => resultOf((await client.POST("/v1/render/swarm", { body })).data));
  n += await check("workspace", workspace, async (body) => resultOf((await client.POST("/v1/render/workspace", { body })).data));
  const hand = await client.POST("/v1/render/delegation", { body: handWritten });
  if (!hand.data) throw new Error(`the hand-written input answered ${hand.response.status}`);
  await providers(resultOf(hand.data)?.text);
  console.log(`client (TypeScript): rendered ${n / 2} examples of ${variants.length} variants through their typed operations, as written and with their defaults left out, each byte for byte as the example as written, and a hand-written input, also in the anthropic and openai forms given to the providers' SDKs as typed; no casts`);
}

// providers renders the hand-written input in the providers' forms and
// puts each, as the generated types give it, in the SDK's request: tsc
// checks that they fit; the blocks and the message must be the prompt.
async function providers(text: string | undefined): Promise<void> {
  const a = anthropicOf((await client.POST("/v1/render/delegation", { params: { query: { format: "anthropic" } }, body: handWritten })).data);
  const o = openaiOf((await client.POST("/v1/render/delegation", { params: { query: { format: "openai" } }, body: handWritten })).data);
  if (!a || !o || text === undefined) throw new Error("a provider's form did not answer 200");
  const anthropic: Anthropic.MessageCreateParamsNonStreaming = {
    model: "claude-sonnet-4-5", max_tokens: 1024, system: a.system, messages: [{ role: "user", content: "Go on." }],
  };
  const openai: OpenAI.ChatCompletionCreateParamsNonStreaming = {
    model: "gpt-4o", messages: [...o.messages, { role: "user", content: "Go on." }], prompt_cache_key: o.prompt_cache_key,
  };
  const system = anthropic.system;
  const blocks = Array.isArray(system) ? system.map((b) => b.text).join("") : system;
  if (blocks !== text || o.messages[0]?.content !== text || openai.messages.length !== 2) {
    throw new Error("the providers' forms of the hand-written input are not its prompt");
  }
}

main().catch((err: unknown) => {
  console.error("client (TypeScript):", err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
