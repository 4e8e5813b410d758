// The token counter's peer: tiktoken's own core (Rust, compiled to
// WebAssembly, npm package "tiktoken"), driven by the bench module's Go
// benchmarks. It loads the encoding named by argv[2] and the text of the
// file argv[3], answers "ready" and then, for every line it reads, counts
// the text's tokens once and answers with the count. Run it with NODE_PATH
// naming the node_modules folder that holds tiktoken.
const fs = require("fs");
const readline = require("readline");
const { get_encoding } = require("tiktoken");

const enc = get_encoding(process.argv[2]);
const text = fs.readFileSync(process.argv[3], "utf8");
const lines = readline.createInterface({ input: process.stdin });
process.stdout.write("ready\n");
lines.on("line", () => {
  process.stdout.write(enc.encode_ordinary(text).length + "\n");
});
lines.on("close", () => enc.free());
